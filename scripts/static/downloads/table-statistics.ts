import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { COLUMN_STATISTICS_FORMAT, tableStatisticsSchema, type TableStatistics } from '../../../core/column-statistics.ts';
import type { Database } from '../../../core/db/duckdb.ts';
import { tableFiles, tableSource, type Snapshot } from '../../../core/snapshot/read.ts';
import { sourceHash } from '../../../core/source-hash.ts';
import { viewName, type Table } from '../../../core/table.ts';
import type { Dataset } from '../../../datasets/vocabulary/dataset.ts';
import type { TreeOutput } from '../tree-output.ts';
import { writeWhole } from '../whole-files.ts';
import { describeColumns } from './column-statistics.ts';
import type { TableDownloads } from './files.ts';

/**
 * Every table's column statistics (see column-statistics.ts), published beside its download
 * folder. Worked out once per set of Parquet files: kept in a cache beside the trees, named by the
 * table's files' sha256 and its columns, and by the code that describes them, so a rebuild after a
 * pull reads only the tables the pull changed. The snapshot's id is put in as each file is written.
 */

/** What the cache keeps of a table: its statistics but the snapshot's, and its names. */
const described = tableStatisticsSchema.pick({ rows: true, columns: true });
type Described = z.infer<typeof described>;

/** The statistics of every table, by `<data set>/<table>`. */
export type StatisticsOfTables = ReadonlyMap<string, Described>;

/** Where a table's statistics are in a `StatisticsOfTables`. */
export const tableKey = (dataset: string, table: string) => `${dataset}/${table}`;

const codeKey = async () =>
  (
    await sourceHash([
      new URL('./column-statistics.ts', import.meta.url),
      new URL('../../../core/db/csv.ts', import.meta.url),
      new URL('../../../core/column-statistics.ts', import.meta.url),
    ])
  ).slice(0, 12);

/** What a table's statistics are made from: its columns as declared and its files' contents. */
function inputOf(snapshot: Snapshot, dataset: Dataset, table: Table): string {
  const columns = Object.entries(table.columns).map(([name, c]) => [name, c.sqlType, c.kind, c.meaning ?? null]);
  const files = snapshot.manifest.datasets[dataset.name]!.tables[table.name]!.files.map((file) => file.sha256);
  return createHash('sha256')
    .update(JSON.stringify([columns, files]))
    .digest('hex')
    .slice(0, 32);
}

/**
 * Works out the statistics of every table the cache lacks (every one, with `fresh`), one after
 * the other on `db` (a connection of its own), and deletes cached ones no table has any more.
 */
export async function describeTables(
  db: Database,
  snapshot: Snapshot,
  datasets: readonly Dataset[],
  cacheDir: string,
  options: { fresh?: boolean; signal?: AbortSignal; onTable?: () => void } = {},
): Promise<StatisticsOfTables> {
  await mkdir(cacheDir, { recursive: true });
  const key = await codeKey();
  const statistics = new Map<string, Described>();
  const used = new Set<string>();
  for (const dataset of datasets) {
    for (const table of Object.values(dataset.tables)) {
      options.signal?.throwIfAborted();
      const name = `${key}-${inputOf(snapshot, dataset, table)}.json`;
      used.add(name);
      const cached = options.fresh
        ? undefined
        : await readFile(join(cacheDir, name), 'utf8').then(
            (text) => described.parse(JSON.parse(text)),
            () => undefined,
          );
      const rows = snapshot.manifest.datasets[dataset.name]!.tables[table.name]!.rows;
      const made = cached ?? (await describeColumns(db, tableSource(tableFiles(snapshot, dataset.name, table.name)), table.columns, rows));
      if (!cached) {
        await writeWhole(join(cacheDir, name), JSON.stringify(made));
        options.onTable?.();
      }
      statistics.set(tableKey(dataset.name, table.name), made);
    }
  }
  for (const name of await readdir(cacheDir)) if (!used.has(name)) await rm(join(cacheDir, name), { force: true });
  return statistics;
}

/** A table's file of statistics, as published. */
export function statisticsDocument(snapshot: Snapshot, dataset: Dataset, table: Table, statistics: StatisticsOfTables): TableStatistics {
  const { rows, columns } = statistics.get(tableKey(dataset.name, table.name))!;
  return {
    format: COLUMN_STATISTICS_FORMAT,
    snapshot: snapshot.id,
    dataset: dataset.name,
    table: table.name,
    sqlName: viewName(dataset, table.name),
    rows,
    columns,
  };
}

/** Writes every table's statistics into the tree, at the path its downloads give them. */
export async function writeStatistics(
  output: TreeOutput,
  snapshot: Snapshot,
  tables: readonly TableDownloads[],
  statistics: StatisticsOfTables,
): Promise<void> {
  for (const { dataset, table, statistics: file } of tables)
    await output.write(file.path, JSON.stringify(statisticsDocument(snapshot, dataset, table, statistics)));
}
