import type { Language, Text } from '../../core/text.ts';

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
  /**
   * `period`: what one x value of a time axis stands for. With `through` (SQL returning one value
   * `through`, the last day the data covers), a last period the data ends inside is drawn as
   * incomplete, so a month with data to its 18th does not read as a crash.
   */
  readonly x: { readonly label: Text; readonly time: boolean; readonly period?: Period; readonly through?: string };
  /**
   * `label`: what the values are, with their unit, the axis title. For panels named by the data as
   * `term (unit)` (`PM10 (µg/m³)`), `{unit}` stands for the panel's unit (`Weekly mean, {unit}`). A
   * panel with a declared name takes that name, which carries its own unit; an axis whose title
   * the title above its panel already says goes untitled. `scale`: `shared` when panels are there
   * to be compared (one y scale for all); otherwise each panel has its own, and the page says so.
   */
  readonly y: { readonly label: Text; readonly scale?: 'shared' | 'own' };
  /** Names of panels whose `panel` value is a key the SQL writes (panels named by data, e.g. a station's name, need none). */
  readonly panels?: Readonly<Record<string, Text>>;
  /**
   * Names of values the SQL returns as keys or as the upstream words them (categories on the x
   * axis, series, panels, band labels): a dictionary's codes, or the upstream's Polish-only labels
   * translated. A value `term (unit)` whose term is listed is translated too. Values not listed
   * are shown as given, marked as written in `valuesLanguage`.
   */
  readonly labels?: Readonly<Record<string, Text>>;
  /** The language the upstream's own words are in, when it gives them in one language only. */
  readonly valuesLanguage?: Language;
  /** What the figures mean, stated under the chart (e.g. how a price per m² is worked out). */
  readonly note?: Text;
  /**
   * Coloured value bands behind each panel: SQL returning `panel`, `from`, `to`, `color`,
   * `label` (e.g. an air-quality index's bands for the panel's sensor).
   */
  readonly bands?: string;
}

export type Period = 'day' | 'week' | 'month' | 'year';

/**
 * An analysis declared as data: a fact table (SQL, one row per thing counted) aggregated by each
 * of its dimensions into one chart, one panel per measure, with the rows as a table and a CSV file
 * on the page. See `analysisCharts`, which turns it into charts.
 */
export interface Analysis {
  /** Prefix of the charts' names: `<name>-by-<dimension>`. */
  readonly name: string;
  /** SQL returning one row per thing counted, with a column per dimension and what the measures aggregate. */
  readonly facts: string;
  readonly measures: readonly Measure[];
  readonly dimensions: readonly Dimension[];
  /** Stated under every chart of the analysis. */
  readonly note: Text;
}

export interface Measure {
  /** Kebab-case key: the panel's value. */
  readonly key: string;
  /** The panel's name and axis title, with the unit. */
  readonly label: Text;
  /** An aggregate over the facts' columns, e.g. `count(*)` or `median(price_per_m2)`. */
  readonly sql: string;
}

export interface Dimension {
  /** Kebab-case: names the chart. */
  readonly name: string;
  readonly title: Text;
  readonly description: Text;
  /** The facts' column grouped by (a DATE at the period's start for time). */
  readonly column: string;
  /** The x axis's title. */
  readonly label: Text;
  /** For time: the period one value stands for, and SQL giving the last day the data covers. */
  readonly period?: Period;
  readonly through?: string;
  /** Names of the column's values (codes → names); values not listed are shown as they are. */
  readonly labels?: Readonly<Record<string, Text>>;
  /** The measures drawn, by key; all when not given. */
  readonly measures?: readonly string[];
}

/** The charts of an analysis: one per dimension, a panel per measure, rows in the measures' order then by x. */
export function analysisCharts(analysis: Analysis): Chart[] {
  return analysis.dimensions.map((dimension): Chart => {
    const measures = dimension.measures ? analysis.measures.filter((measure) => dimension.measures!.includes(measure.key)) : analysis.measures;
    const selects = measures.map(
      (measure, i) =>
        `SELECT '${measure.key}' AS panel, ${i} AS o, ${dimension.column} AS x, (${measure.sql})::DOUBLE AS y FROM facts WHERE ${dimension.column} IS NOT NULL GROUP BY ${dimension.column}`,
    );
    const time = !!dimension.period;
    return {
      name: `${analysis.name}-by-${dimension.name}`,
      title: dimension.title,
      description: dimension.description,
      sql: `WITH facts AS (${analysis.facts}) SELECT panel, x, y FROM (${selects.join(' UNION ALL ')}) ORDER BY o, x`,
      kind: time ? 'line' : 'bar',
      x: {
        label: dimension.label,
        time,
        ...(dimension.period ? { period: dimension.period } : {}),
        ...(dimension.through ? { through: dimension.through } : {}),
      },
      y: { label: measures[0]!.label, scale: 'own' },
      panels: Object.fromEntries(measures.map((measure) => [measure.key, measure.label])),
      ...(dimension.labels ? { labels: dimension.labels } : {}),
      note: analysis.note,
    };
  });
}

export interface MapLayer {
  /** Kebab-case, unique within the data set. */
  readonly name: string;
  readonly title: Text;
  /** What the legend says beyond the title: what a place stands for, how its value is worked out, what is left out. */
  readonly description?: Text;
  /**
   * Returns `id`, `name`, `lon`, `lat` (WGS 84) of each place; with `value` declared, also
   * `value` (a number) and, when `value.count` says what it counts, `count` (how many records the
   * value sums up).
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
  /** The declaration's x axis without its `through` SQL, which is not published (`incomplete` says what it found). */
  readonly x: Omit<Chart['x'], 'through'>;
  readonly y: Chart['y'];
  readonly panels: NonNullable<Chart['panels']>;
  readonly labels?: Chart['labels'];
  readonly valuesLanguage?: Language;
  readonly note?: Text;
  /** The last period, when the data ends inside it (`through`, its last day covered). */
  readonly incomplete?: { readonly x: string; readonly through: string };
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
