import type { Table } from '../../../core/table.ts';
import type { Snapshot } from '../../../core/snapshot/read.ts';
import type { FileManifest, TableManifest } from '../../../core/snapshot/manifest.ts';
import type { Dataset } from '../../../datasets/vocabulary/dataset.ts';
import { columnStatisticsPath, CSV_DOWNLOADS, DOWNLOADS, tableCataloguePath } from '../../../core/published-tree.ts';

/**
 * The files under `/downloads/<data set>/<table>/…`: each Parquet file of the snapshot at its
 * partition path (so URLs stay the same from one snapshot to the next), and the same rows as
 * gzip-compressed CSV at the same path under `/downloads/csv/`, out of the folders that Parquet
 * readers take whole. Every description of the downloads (catalogue, Data Package, DCAT-AP,
 * DuckDB script) is made from this list.
 */

/** A file of the tree: where it sits in the tree and the URL it is linked by. */
interface TreeFile {
  /** Relative to the tree's root, e.g. `downloads/rcn/transactions/part-0.parquet`. */
  readonly path: string;
  readonly url: string;
  readonly bytes: number;
  readonly sha256: string;
}

export interface DownloadFile extends TreeFile {
  readonly rows: number;
  readonly partition: FileManifest['partition'];
  readonly min: string | null;
  readonly max: string | null;
  /** The snapshot's file. */
  readonly source: string;
  /** The same rows as CSV (see core/db/csv.ts), gzip-compressed. */
  readonly csv: TreeFile;
}

export interface TableDownloads {
  readonly dataset: Dataset;
  readonly table: Table;
  readonly entry: TableManifest;
  readonly files: readonly DownloadFile[];
  /** Its column statistics (see table-statistics.ts), beside its folder. */
  readonly statistics: { readonly path: string; readonly url: string };
  /** The catalogue with this table alone (see catalogue.ts), beside its folder. */
  readonly catalogue: { readonly path: string; readonly url: string };
}

/** A snapshot file's place under its table, e.g. `year=2024/part-0.parquet`. */
const inTable = (file: FileManifest) => file.path.split('/').slice(2).join('/');

/** The path of a snapshot file in the tree: the same partition folders under downloads/. */
const downloadPath = (dataset: string, table: string, file: FileManifest) => `${DOWNLOADS}/${dataset}/${table}/${inTable(file)}`;

/** The path of a snapshot file's CSV twin: `downloads/csv/<data set>/<table>/year=2024/part-0.csv.gz`. */
const csvPath = (dataset: string, table: string, file: FileManifest) =>
  `${CSV_DOWNLOADS}/${dataset}/${table}/${inTable(file).replace(/\.parquet$/, '.csv.gz')}`;

/** Every table of the data sets with its files, linked on `base` ('' for root-relative links). */
export function tableDownloads(
  snapshot: Snapshot,
  datasets: readonly Dataset[],
  base: string,
  csvOf: (file: FileManifest) => { bytes: number; sha256: string },
): TableDownloads[] {
  return datasets.flatMap((dataset) =>
    Object.values(dataset.tables).map((table) => {
      const entry = snapshot.manifest.datasets[dataset.name]!.tables[table.name]!;
      const files = entry.files.map((file) => {
        const path = downloadPath(dataset.name, table.name, file);
        const csv = csvPath(dataset.name, table.name, file);
        return {
          path,
          url: `${base}/${path}`,
          rows: file.rows,
          bytes: file.bytes,
          sha256: file.sha256,
          partition: file.partition,
          min: file.min,
          max: file.max,
          source: file.path,
          csv: { path: csv, url: `${base}/${csv}`, ...csvOf(file) },
        };
      });
      const statistics = columnStatisticsPath(dataset.name, table.name);
      const catalogue = tableCataloguePath(dataset.name, table.name);
      return {
        dataset,
        table,
        entry,
        files,
        statistics: { path: statistics, url: `${base}/${statistics}` },
        catalogue: { path: catalogue, url: `${base}/${catalogue}` },
      };
    }),
  );
}

/** A partition file's values as people read them, e.g. `year=2024, month=09`. */
export const partitionLabel = (partition: Readonly<Record<string, unknown>>) =>
  Object.entries(partition)
    .map(([name, value]) => `${name}=${String(value)}`)
    .join(', ');
