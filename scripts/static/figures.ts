import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { ChartData, MapLayerData, MapPlace, Period } from '../../datasets/vocabulary/figure.ts';
import { inTurn, type Database } from '../../core/db/duckdb.ts';
import { figuresPath } from '../../core/published-tree.ts';
import type { BuildRun } from './build-run.ts';
import type { TreeOutput } from './tree-output.ts';

/**
 * The rows of every data set's charts and map layers (see datasets/vocabulary/figure.ts), from their SQL
 * over the snapshot's views. Published in the tree at `api/public/figures/<data set>.json` for
 * anyone to draw, and read by the site at build time.
 */

/**
 * Starts working out every data set's figures, one after another, on `db` (a connection of their
 * own): SQL over whole tables, done while the tree is read and written, where a rebuild leaves
 * DuckDB idle most of the time.
 */
export function startFigures(db: Database, datasets: readonly Dataset[], run: BuildRun): Map<Dataset, Promise<DatasetFigures>> {
  const figures = inTurn(datasets, (dataset) => figuresOf(db, dataset), run.failing);
  run.atEnd(() => Promise.allSettled(figures.values()));
  return figures;
}

/** The figures step of a build: each data set's figures, as they come, in the tree. */
export async function writeFigures(output: TreeOutput, figures: ReadonlyMap<Dataset, Promise<DatasetFigures>>): Promise<void> {
  for (const [dataset, made] of figures) await output.write(figuresPath(dataset.name), JSON.stringify(await made));
}

export interface DatasetFigures {
  readonly charts: readonly ChartData[];
  readonly map: readonly MapLayerData[];
}

export async function figuresOf(db: Database, dataset: Dataset): Promise<DatasetFigures> {
  const charts: ChartData[] = [];
  for (const chart of dataset.charts) {
    const returned = new Set((await db.rows<{ column_name: string }>(`DESCRIBE ${chart.sql}`)).map((column) => column.column_name));
    const optional = ['series', 'panel'].filter((name) => returned.has(name)).map((name) => `, CAST(${name} AS VARCHAR) AS ${name}`);
    const rows = await db.rows<{ x: string; y: number | null; series?: string; panel?: string }>(
      `SELECT CAST(x AS VARCHAR) AS x, CAST(y AS DOUBLE) AS y${optional.join('')} FROM (${chart.sql})`,
    );
    const bands = chart.bands
      ? await db.rows<{ panel: string; from: number; to: number; color: string; label: string }>(
          `SELECT CAST(panel AS VARCHAR) AS panel, CAST("from" AS DOUBLE) AS "from", CAST("to" AS DOUBLE) AS "to", CAST(color AS VARCHAR) AS color, CAST(label AS VARCHAR) AS label FROM (${chart.bands})`,
        )
      : [];
    const drawn = rows.filter((row) => row.y !== null && Number.isFinite(row.y)) as ChartData['rows'];
    const through = chart.x.through
      ? (await db.rows<{ through: string | null }>(`SELECT CAST(max(through) AS VARCHAR) AS through FROM (${chart.x.through})`))[0]?.through
      : null;
    const incomplete = chart.x.period && through ? incompletePeriod(drawn, chart.x.period, through.slice(0, 10)) : undefined;
    charts.push({
      name: chart.name,
      title: chart.title,
      description: chart.description,
      kind: chart.kind,
      // The axis without its `through` SQL: the figures publish what the site draws, not the SQL.
      x: { label: chart.x.label, time: chart.x.time, ...(chart.x.period ? { period: chart.x.period } : {}) },
      y: chart.y,
      panels: chart.panels ?? {},
      ...(chart.labels ? { labels: chart.labels } : {}),
      ...(chart.valuesLanguage ? { valuesLanguage: chart.valuesLanguage } : {}),
      ...(chart.note ? { note: chart.note } : {}),
      ...(incomplete ? { incomplete } : {}),
      rows: drawn,
      bands: bands.map((band) => ({ ...band })),
    });
  }
  const map: MapLayerData[] = [];
  for (const layer of dataset.map) {
    // A layer that declares what `count` counts returns it (see MapLayer.sql).
    const figures = layer.value ? [', CAST(value AS DOUBLE) AS value', ...(layer.value.count ? [', CAST(count AS INTEGER) AS count'] : [])] : [];
    const places = await db.rows<MapPlace>(
      `SELECT CAST(id AS VARCHAR) AS id, CAST(name AS VARCHAR) AS name, CAST(lon AS DOUBLE) AS lon, CAST(lat AS DOUBLE) AS lat${figures.join('')}
       FROM (${layer.sql}) WHERE lon IS NOT NULL AND lat IS NOT NULL${layer.value ? ' AND value IS NOT NULL AND isfinite(CAST(value AS DOUBLE))' : ''}`,
    );
    map.push({
      name: layer.name,
      title: layer.title,
      ...(layer.description ? { description: layer.description } : {}),
      ...(layer.value ? { value: layer.value } : {}),
      places: places.map((place) => ({ ...place })),
    });
  }
  return { charts, map };
}

/** The last period of a time axis when the data's last day covered falls before that period's last day. */
export function incompletePeriod(rows: ChartData['rows'], period: Period, through: string): { x: string; through: string } | undefined {
  const last = rows
    .map((row) => row.x.slice(0, 10))
    .sort()
    .at(-1);
  if (!last) return undefined;
  const start = new Date(`${last}T00:00:00Z`);
  const end =
    period === 'day'
      ? start
      : period === 'week'
        ? new Date(start.getTime() + 6 * 86_400_000)
        : period === 'month'
          ? new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 0))
          : new Date(Date.UTC(start.getUTCFullYear(), 11, 31));
  return through < end.toISOString().slice(0, 10) ? { x: rows.find((row) => row.x.slice(0, 10) === last)!.x, through } : undefined;
}
