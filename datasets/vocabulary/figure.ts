import type { Text } from '../../core/text.ts';

/**
 * What a data set's page draws: charts and map layers, declared as SQL over the snapshot's views
 * (named `<data set>_<table>`, e.g. `bike_counter_readings`). The static build runs the SQL once
 * per snapshot and publishes the rows beside the tree; the site draws them as SVG at build time,
 * so the page needs neither a server nor scripts to show them (and, built with tiles, puts the
 * map layers on a Leaflet map over streets where the browser can load them).
 */

export interface Chart {
  /** Kebab-case, unique within the data set: names the published file `charts/<data set>/<name>.json`. */
  readonly name: string;
  readonly title: Text;
  readonly description: Text;
  /**
   * Returns `x` (a day as DATE, or a label), `y` (a number) and optionally `series` (one line or
   * bar colour per value) and `panel` (one small chart per value, drawn side by side).
   */
  readonly sql: string;
  readonly kind: 'line' | 'bar';
  readonly x: { readonly label: Text; readonly time: boolean };
  readonly y: { readonly label: Text };
  /** Names of panels whose `panel` value is a key the SQL writes (panels named by data, e.g. a station's name, need none). */
  readonly panels?: Readonly<Record<string, Text>>;
  /**
   * Coloured value bands behind each panel: SQL returning `panel`, `from`, `to`, `color`,
   * `label` (e.g. an air-quality index's bands for the panel's sensor).
   */
  readonly bands?: string;
}

export interface MapLayer {
  /** Kebab-case, unique within the data set. */
  readonly name: string;
  readonly title: Text;
  /** What the legend says beyond the title: what a place stands for, how its value is worked out, what is left out. */
  readonly description?: Text;
  /**
   * Returns `id`, `name`, `lon`, `lat` (WGS 84) of each place; with `value` declared, also
   * `value` (a number) and optionally `count` (how many records the value sums up).
   */
  readonly sql: string;
  /**
   * The places carry a figure each (e.g. a district's median price), drawn as a labelled circle
   * at the place, never clustered, instead of a marker.
   */
  readonly value?: MapValue;
}

export interface MapValue {
  /** What the number is, e.g. "Median price per m²". */
  readonly label: Text;
  /** Its unit as shown after it, e.g. "PLN/m²". */
  readonly unit: Text;
  /** What `count` counts, e.g. "units sold". */
  readonly count?: Text;
}

/** One published chart: its declaration's texts and the rows its SQL returned. */
export interface ChartData {
  readonly name: string;
  readonly title: Text;
  readonly description: Text;
  readonly kind: Chart['kind'];
  readonly x: Chart['x'];
  readonly y: Chart['y'];
  readonly panels: NonNullable<Chart['panels']>;
  readonly rows: readonly { readonly x: string; readonly y: number; readonly series?: string; readonly panel?: string }[];
  readonly bands: readonly { readonly panel: string; readonly from: number; readonly to: number; readonly color: string; readonly label: string }[];
}

export interface MapLayerData {
  readonly name: string;
  readonly title: Text;
  readonly description?: Text;
  readonly value?: MapValue;
  readonly places: readonly MapPlace[];
}

export interface MapPlace {
  readonly id: string;
  readonly name: string;
  readonly lon: number;
  readonly lat: number;
  /** In layers with a value: the place's figure and how many records it sums up. */
  readonly value?: number;
  readonly count?: number;
}
