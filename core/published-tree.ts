import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The files of a static tree others read by name: the site reads what the builder wrote, and
 * `odsnap serve` and `start` tell which snapshot a tree holds.
 */

/** The static tree's entry point: its snapshot, licence, and every data set, endpoint and file pattern. */
export const INDEX = 'api/public/index.json';

/** How fresh the data is, as of the build (core/status-document.ts): the file of the server's /api/public/status. */
export const STATUS_FILE = 'api/public/status.json';

/** The OpenAPI document of v1, which the site writes. */
export const OPENAPI = 'api/public/openapi.json';

export const DOWNLOADS = 'downloads';
/**
 * Where the CSV twins of the Parquet files go: a folder of their own, since readers of a table's
 * folder (pandas, pyarrow, polars) take every file in it for Parquet. No data set may be named so.
 */
export const CSV_DOWNLOADS = `${DOWNLOADS}/csv`;
/** Every Parquet file of the snapshot (rows, bytes, sha256, partition values, time range) with its CSV twin, and the DuckDB script. */
export const CATALOGUE = `${DOWNLOADS}/catalogue.json`;
/** The site's page for paths that are no page (site/pages/404.astro): served by odsnap serve, nginx and static hosts. */
export const NOT_FOUND_PAGE = '404.html';

/**
 * The earliest and latest time of some tables' rows, from their files' ranges (as the catalogue
 * has them): what the site and the DCAT-AP record say a data set covers.
 */
export function timeCoverage(
  tables: readonly { readonly files: readonly { readonly min: string | null; readonly max: string | null }[] }[],
): { readonly min: string; readonly max: string } | undefined {
  const values = tables.flatMap((table) => table.files.flatMap((file) => [file.min, file.max])).filter((value): value is string => !!value);
  if (!values.length) return undefined;
  // ISO days and instants in UTC sort as text, a day before the instants of that day.
  values.sort();
  return { min: values[0]!, max: values[values.length - 1]! };
}
/**
 * The time some tables cover, as two ranges: the records' own dates, and the captures of live
 * views (tables declaring `liveCaptures`, see core/table.ts), stamped by the pull's clock (a pull
 * today captures today, however old the data); one range over both would claim records up to the
 * day of the last pull. What the site and the DCAT-AP record say a data set covers is `records`.
 */
export function recordsAndLiveCoverage<T extends Parameters<typeof timeCoverage>[0][number]>(tables: readonly T[], isLive: (table: T) => boolean) {
  return { records: timeCoverage(tables.filter((table) => !isLive(table))), live: timeCoverage(tables.filter(isLive)) };
}
/**
 * A table's column statistics (type, nulls, distinct values, min/max, a histogram or the top
 * values), computed at build time: beside the table's folder, not in it, since readers of the
 * folder take every file in it for Parquet.
 */
export const columnStatisticsPath = (dataset: string, table: string) => `${DOWNLOADS}/${dataset}/${table}.stats.json`;
/**
 * A table's catalogue: the catalogue with that table alone, beside its folder as the statistics
 * are. Its page reads it, not the whole one, which grows with every table's files.
 */
export const tableCataloguePath = (dataset: string, table: string) => `${DOWNLOADS}/${dataset}/${table}.catalogue.json`;
export const DATAPACKAGE = 'datapackage.json';
export const DCAT = `${DOWNLOADS}/dcat.jsonld`;

/** A tree's DuckDB entry point: a view per table over its Parquet files. */
export const DUCKDB_SCRIPT = `${DOWNLOADS}/odsnap.sql`;

/** The site's page of a data set (English; the site's other language lives under `pl/`), which catalogues link to. */
export const datasetPagePath = (dataset: string) => `datasets/${dataset}/`;

/** The pulls a tree knows, newest first, with what each changed (see scripts/static/changes.ts). */
export const CHANGES_INDEX = 'api/public/changes/index.json';
/** What one pull changed: the records it added, changed and removed, and counts per day for series. */
export const changesPath = (snapshot: string) => `api/public/changes/${snapshot}.json`;
/** The Atom feed of a data set that declares one. */
export const feedPath = (dataset: string) => `api/public/${dataset}/changes.atom`;

/** The rows of a data set's charts and map layers. */
export const figuresPath = (dataset: string) => `api/public/figures/${dataset}.json`;

/** The snapshot a static tree (or the directory it is swapped in at) was built from; undefined when there is no tree odsnap can read. */
export function builtSnapshotId(tree: string): string | undefined {
  try {
    const id = (JSON.parse(readFileSync(join(tree, INDEX), 'utf8')) as { snapshot?: { id?: unknown } }).snapshot?.id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
