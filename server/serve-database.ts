import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { Dataset } from '../datasets/core/dataset.ts';
import { rowOrder } from '../datasets/core/row-order.ts';
import type { Table } from '../datasets/core/table.ts';
import { quoteIdentifier } from '../scripts/db/duckdb.ts';
import { createViews, type Snapshot } from '../scripts/snapshot/read.ts';

/**
 * The server's own database for a snapshot: the tables requests page through or look up by key,
 * copied from the Parquet files in list order, with what their filters derive. DuckDB keeps it
 * compressed on disk and caches what requests touch, so memory stays bounded however large the
 * snapshot. Built once, under a temporary name, then kept in the data directory's cache beside
 * the snapshot it was made from.
 */

/** Bump when what the file holds changes: an older file is then built again. */
const FORMAT = 4;
export const SCHEMA = 'served';

/** Derived columns filters need: the text of a list column, a row's shapes. */
export const textColumn = (column: string) => `${column}__text`;
export const SHAPES_COLUMN = '__shapes';

/** Tables this small are stored whole, whatever answers them: reading them is then a lookup. */
const SMALL_TABLE_BYTES = 4 * 1024 * 1024;

export const serveDatabasePath = (snapshot: Snapshot) => join(snapshot.cacheDir, `serve-v${FORMAT}.duckdb`);

/**
 * The columns a table's page filters read, with what they derive: the part of a paged table kept
 * in memory. The page's rows themselves are then read from the stored table by row number.
 */
export function filterColumns(dataset: Dataset, table: Table): string[] | undefined {
  const pages = dataset.endpoints.flatMap((e) => (e.answer.kind === 'page' && dataset.resources[e.answer.resource]?.table === table.name ? [e.answer] : []));
  if (!pages.length) return undefined;
  // Lists of ids (listContains) stay in the stored table: scanning them there takes a few
  // milliseconds, while a copy in memory would be the largest part of it (city: 50 MB).
  const columns = pages.flatMap((p) => Object.values(p.filters)).flatMap((f) =>
    f.kind === 'partOfAny' ? [textColumn(f.column)] : f.kind === 'intersects' ? [...f.extent, SHAPES_COLUMN] : f.kind === 'listContains' ? [] : [f.column]);
  return [...new Set(columns)];
}

interface StoredTable {
  readonly derived: string[];
}

/** Which tables are stored and with what: paged and looked-up tables, and any small one. */
export function storagePlan(dataset: Dataset, table: Table, snapshot: Snapshot): StoredTable | undefined {
  const answers = dataset.endpoints.map((e) => e.answer);
  const ofTable = (resource: string) => dataset.resources[resource]?.table === table.name;
  const pages = answers.flatMap((a) => (a.kind === 'page' && ofTable(a.resource) ? [a] : []));
  const items = answers.flatMap((a) => ((a.kind === 'item' || a.kind === 'document') && ofTable(a.resource) ? [a] : []));
  const bytes = snapshot.manifest.datasets[dataset.name]!.tables[table.name]!.files.reduce((n, f) => n + f.bytes, 0);
  if (!pages.length && !items.length && bytes > SMALL_TABLE_BYTES) return undefined;
  const derived: string[] = [];
  for (const filter of pages.flatMap((p) => Object.values(p.filters))) {
    if (filter.kind === 'partOfAny') derived.push(`lower(array_to_string(${quoteIdentifier(filter.column)}, chr(1))) AS ${quoteIdentifier(textColumn(filter.column))}`);
    if (filter.kind === 'intersects') derived.push(`${filter.shapes} AS ${quoteIdentifier(SHAPES_COLUMN)}`);
  }
  return { derived };
}

export async function ensureServeDatabase(snapshot: Snapshot, datasets: readonly Dataset[]): Promise<string> {
  const path = serveDatabasePath(snapshot);
  if (await stat(path).then(() => true, () => false)) return path;
  await mkdir(snapshot.cacheDir, { recursive: true });
  const temporary = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  const instance = await DuckDBInstance.create(temporary, { memory_limit: '512MB', threads: '2' });
  const connection = await instance.connect();
  try {
    const run = (sql: string) => connection.run(sql).then(() => undefined);
    await run(`SET TimeZone = 'UTC'`);
    // FSST-compressed text must be decompressed to be compared: a lookup by id then decodes every
    // id in the table. Without it, key scans run three times faster, for a file about twice as big.
    await run(`SET disabled_compression_methods = 'fsst'`);
    await run(`CREATE SCHEMA ${SCHEMA}`);
    await createViews({ run: (sql) => run(sql.replace('CREATE OR REPLACE VIEW', 'CREATE OR REPLACE TEMP VIEW')) }, snapshot, datasets);
    for (const dataset of datasets) {
      for (const table of Object.values(dataset.tables)) {
        const plan = storagePlan(dataset, table, snapshot);
        if (!plan) continue;
        const name = `${SCHEMA}.${quoteIdentifier(`${dataset.sqlName}_${table.name}`)}`;
        const select = [...Object.keys(table.columns).map(quoteIdentifier), ...plan.derived].join(', ');
        // Each file is already in row order (the snapshot writer sees to it), so one file needs no
        // sort; sorting wide rows (JSON details) would also need far more memory than copying them.
        const files = snapshot.manifest.datasets[dataset.name]!.tables[table.name]!.files.length;
        const order = files > 1 ? ` ORDER BY ${rowOrder(table).map(quoteIdentifier).join(', ')}` : '';
        await run(`CREATE TABLE ${name} AS SELECT ${select} FROM ${quoteIdentifier(`${dataset.sqlName}_${table.name}`)}${order}`);
      }
    }
    await run('CHECKPOINT');
  } catch (error) {
    connection.closeSync();
    instance.closeSync();
    await rm(temporary, { force: true });
    throw error;
  }
  connection.closeSync();
  instance.closeSync();
  await rename(temporary, path);
  await rm(`${temporary}.wal`, { force: true });
  return path;
}
