import type { CatalogueTable } from './tree-snapshot.ts';

/**
 * Copy-paste code that reads a table's files from where the site is served: its Parquet files
 * with DuckDB, pandas and pyarrow, its CSV files with pandas, and the odsnap CLI (which pulls
 * through the v1 interface of an odsnap server). A table of many files lists the first few; the
 * catalogue lists them all. Each Python snippet leaves the table in a variable named as its view.
 */

/** Files listed in full in a snippet; beyond that, the first ones and a pointer to the catalogue. */
const LISTED = 24;

export interface TableSnippets {
  readonly duckdb: string;
  readonly pandas: string;
  readonly pyarrow: string;
  /** pandas over the CSV files, which it decompresses by their .gz. */
  readonly csv: string;
  readonly cli: string;
  /** `sha256sum -c` input: the table's files with their checksums, by path under downloads/. */
  readonly checksums: string;
}

export interface SnippetContext {
  /** Where the site is served (origin, and path for an absolute tree): root-relative URLs are made absolute on it. */
  readonly origin: string;
  /** Where an odsnap server answers the v1 interface beside the site (origin and base path). */
  readonly server: string;
  readonly catalogueUrl: string;
}

export const absoluteUrl = (url: string, origin: string) => (/^https?:\/\//.test(url) ? url : `${origin.replace(/\/+$/, '')}${url}`);

/** The path of a download under `downloads/`, e.g. `citybike/rides/year=2024/month=10/part-0.parquet`. */
export const downloadPath = (url: string) => url.slice(url.lastIndexOf('/downloads/') + '/downloads/'.length);

export function tableSnippets(table: CatalogueTable, context: SnippetContext): TableSnippets {
  const urls = table.files.map((file) => absoluteUrl(file.url, context.origin));
  const listed = urls.slice(0, LISTED);
  const more = urls.length - listed.length;
  const catalogue = absoluteUrl(context.catalogueUrl, context.origin);
  const note = (comment: string) => (more ? `${comment} the first ${listed.length} of ${urls.length} files; ${catalogue} lists them all\n` : '');
  const quoted = (quote: string, indent: string, among = listed) => among.map((url) => `${indent}${quote}${url}${quote},`).join('\n');
  const csvUrls = table.files.slice(0, LISTED).map((file) => absoluteUrl(file.csv.url, context.origin));
  return {
    duckdb: `${note('--')}SELECT *\nFROM read_parquet([\n${quoted("'", '  ').replace(/,$/, '')}\n], hive_partitioning = false);`,
    pandas: `${note('#')}import pandas as pd\n\nurls = [\n${quoted('"', '    ')}\n]\n${table.sqlName} = pd.concat((pd.read_parquet(url) for url in urls), ignore_index=True)`,
    pyarrow:
      `${note('#')}import io\nimport urllib.request\n\nimport pyarrow as pa\nimport pyarrow.parquet as pq\n\nurls = [\n${quoted('"', '    ')}\n]\n` +
      `${table.sqlName} = pa.concat_tables(pq.read_table(io.BytesIO(urllib.request.urlopen(url).read())) for url in urls)`,
    csv: `${note('#')}import pandas as pd\n\nurls = [\n${quoted('"', '    ', csvUrls)}\n]\n${table.sqlName} = pd.concat((pd.read_csv(url) for url in urls), ignore_index=True)`,
    cli:
      `npx odsnap pull --from ${context.server.replace(/\/+$/, '')} --datasets ${table.dataset} --data data\n` +
      `npx odsnap sql --data data "SELECT count(*) FROM ${table.sqlName}"`,
    checksums: table.files.map((file) => `${file.sha256}  ${downloadPath(file.url)}`).join('\n'),
  };
}

/** The id of a table's section on the downloads page, and of a data set's. */
export const tableAnchor = (table: Pick<CatalogueTable, 'dataset' | 'table'>) => `files-${table.dataset}-${table.table}`;
export const datasetAnchor = (dataset: string) => `files-${dataset}`;
