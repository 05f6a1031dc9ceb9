import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { viewName, type StoredDataset } from '../table.ts';
import { readList, rowDecoder } from '../db/columns.ts';
import { quoteIdentifier, quoteString, type Database } from '../db/duckdb.ts';
import { currentSnapshotId, dataLayout, holdsSnapshot } from './layout.ts';
import { readManifest, type FileManifest, type Manifest } from './manifest.ts';

export interface Snapshot {
  readonly id: string;
  readonly dir: string;
  /** Where derived files of this snapshot may be kept. */
  readonly cacheDir: string;
  readonly manifest: Manifest;
}

/** The current snapshot of a data directory, or the one named by `id`. */
export async function openSnapshot(dataDir: string, id?: string): Promise<Snapshot> {
  const chosen = id ?? (await currentSnapshotId(dataDir));
  if (!chosen) throw new Error(`${dataLayout(dataDir).root} holds no snapshot yet; make one with "odsnap sample" or "odsnap pull"`);
  const layout = dataLayout(dataDir);
  const dir = layout.snapshot(chosen);
  if (id !== undefined && !holdsSnapshot(dataDir, id)) {
    const held = existsSync(layout.snapshots) ? (await readdir(layout.snapshots)).sort() : [];
    const newest = held.length > 5 ? `…, ${held.slice(-5).join(', ')}` : held.join(', ');
    throw new Error(`${layout.root} holds no snapshot ${JSON.stringify(id)}; it holds ${held.length ? newest : 'none'}`);
  }
  return snapshotAt(dataDir, chosen, await readManifest(dir));
}

/** The snapshot `id` of a data directory whose manifest was read already (e.g. by listSnapshots). */
export function snapshotAt(dataDir: string, id: string, manifest: Manifest): Snapshot {
  return { id, dir: dataLayout(dataDir).snapshot(id), cacheDir: snapshotCacheDir(dataDir, id), manifest };
}

/**
 * Where what is derived from a snapshot goes (the server's database, DuckDB's spill): under
 * ODSNAP_CACHE_DIR when set (`--cache-dir`), else the data directory's cache/<id> when it may be
 * written, else a directory of the system's temporary one named after the data directory, so that
 * a read-only data directory serves, queries and builds all the same.
 */
export function snapshotCacheDir(dataDir: string, id: string): string {
  const chosen = process.env.ODSNAP_CACHE_DIR;
  if (chosen) return join(resolve(chosen), id);
  const layout = dataLayout(dataDir);
  const own = layout.cache(id);
  if (mayWriteUnder(own)) return own;
  return join(tmpdir(), 'odsnap-cache', createHash('sha256').update(layout.root).digest('hex').slice(0, 16), id);
}

/** Whether `path`, or the nearest directory above it that exists, may be written to. */
function mayWriteUnder(path: string): boolean {
  for (let dir = path; ; dir = dirname(dir)) {
    if (!existsSync(dir)) {
      if (dirname(dir) === dir) return false;
      continue;
    }
    try {
      accessSync(dir, constants.W_OK);
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * Why a snapshot does not have the tables the data sets declare (columns, their types, row order),
 * or undefined when it does: a snapshot written by another version of odsnap.
 */
export function shapeMismatch(snapshot: Snapshot, datasets: readonly StoredDataset[]): string | undefined {
  for (const dataset of datasets) {
    for (const table of Object.values(dataset.tables)) {
      const entry = snapshot.manifest.datasets[dataset.name]?.tables[table.name];
      const where = `${dataset.name}/${table.name}`;
      if (!entry) return `it has no table ${where}`;
      const declared = Object.entries(table.columns).map(([name, column]) => `${name} ${column.sqlType}`);
      const stored = entry.columns.map((column) => `${column.name} ${column.type}`);
      const missing = declared.filter((column) => !stored.includes(column));
      const unknown = stored.filter((column) => !declared.includes(column));
      if (missing.length || unknown.length) {
        return `${where} has other columns (${[...missing.map((c) => `missing ${c}`), ...unknown.map((c) => `not declared ${c}`)].join(', ')})`;
      }
      if (entry.sortBy.join() !== table.sortBy.join()) return `${where} is sorted by ${entry.sortBy.join(', ')}, not ${table.sortBy.join(', ')}`;
      const partitions = (list: readonly { name: string; column: string; part?: string }[]) =>
        list.map((p) => `${p.name}=${p.part ?? ''}(${p.column})`).join(', ');
      if (partitions(entry.partitionBy) !== partitions(table.partitionBy ?? []))
        return `${where} is partitioned as ${partitions(entry.partitionBy) || 'nothing'}, not ${partitions(table.partitionBy ?? []) || 'nothing'}`;
    }
  }
  return undefined;
}

/** Refuses, with the reason and the remedy, a snapshot that does not have the declared tables. */
export function assertShape(snapshot: Snapshot, datasets: readonly StoredDataset[]): void {
  const why = shapeMismatch(snapshot, datasets);
  if (why) throw new Error(`snapshot ${snapshot.id} was written by another version of odsnap: ${why}. Make a new one with "odsnap pull" (or "odsnap sample").`);
}

/** Absolute paths of a table's Parquet files. */
export function tableFiles(snapshot: Snapshot, dataset: string, table: string): string[] {
  const entry = snapshot.manifest.datasets[dataset]?.tables[table];
  if (!entry) throw new Error(`snapshot ${snapshot.id} has no table ${dataset}/${table}`);
  return entry.files.map((file) => join(snapshot.dir, file.path));
}

/** Which rows a reader wants: equal column values, instants (epoch ms) in [from, to). */
export interface Narrowing {
  readonly equal?: Readonly<Record<string, unknown>>;
  readonly from?: number;
  readonly to?: number;
}

/**
 * Absolute paths of the files of a table that can hold rows so narrowed, by the manifest's
 * partition values and time ranges, in manifest order. Never empty: with nothing chosen, the
 * table's first file still gives its columns.
 */
export function chooseFiles(snapshot: Snapshot, dataset: StoredDataset, tableName: string, narrow: Narrowing = {}): string[] {
  return chosenFiles(snapshot, dataset, tableName, narrow).map((file) => join(snapshot.dir, file.path));
}

/** The manifest entries of the files chooseFiles gives. */
export function chosenFiles(snapshot: Snapshot, dataset: StoredDataset, tableName: string, narrow: Narrowing = {}): FileManifest[] {
  const table = dataset.tables[tableName]!;
  const entry = snapshot.manifest.datasets[dataset.name]!.tables[tableName]!;
  const byValue = (table.partitionBy ?? []).filter((p) => !p.part && narrow.equal && p.column in narrow.equal);
  const keep = (file: FileManifest) =>
    byValue.every((p) => file.partition[p.name] === String(narrow.equal![p.column])) &&
    (narrow.from === undefined || file.max === null || Date.parse(file.max) >= narrow.from) &&
    (narrow.to === undefined || file.min === null || Date.parse(file.min) < narrow.to);
  const chosen = entry.files.filter((file) => file.rows > 0 && keep(file));
  return chosen.length ? chosen : entry.files.slice(0, 1);
}

/** SQL for a table's rows: the Parquet files as they are, without hive columns from the paths. */
export const tableSource = (files: readonly string[]) => `read_parquet([${files.map(quoteString).join(', ')}], hive_partitioning = false)`;

/** A view named `name` over Parquet files. */
export const createTableView = (db: Pick<Database, 'run'>, name: string, files: readonly string[]) =>
  db.run(`CREATE OR REPLACE VIEW ${quoteIdentifier(name)} AS SELECT * FROM ${tableSource(files)}`);

/** What views are made from: a data set's names and its tables' names (a Dataset is one). */
export interface ViewedDataset {
  readonly name: string;
  readonly sqlName: string;
  readonly tables: Readonly<Record<string, { readonly name: string }>>;
}

/** The names views are made from, as plain data (for a process of its own, see server/sql/runner.ts). */
export const viewedDatasets = (datasets: readonly ViewedDataset[]): ViewedDataset[] =>
  datasets.map(({ name, sqlName, tables }) => ({
    name,
    sqlName,
    tables: Object.fromEntries(Object.values(tables).map((table) => [table.name, { name: table.name }])),
  }));

/** The views of every table of a snapshot (see viewName), e.g. rcn_transactions, bike_counter_readings. */
export async function createViews(db: Pick<Database, 'run'>, snapshot: Snapshot, datasets: readonly ViewedDataset[]): Promise<string[]> {
  const names: string[] = [];
  for (const dataset of datasets) {
    for (const table of Object.values(dataset.tables)) {
      const name = viewName(dataset, table.name);
      await createTableView(db, name, tableFiles(snapshot, dataset.name, table.name));
      names.push(name);
    }
  }
  return names;
}

/** Every row of a table as JS rows (decimals and days as text, instants as epoch ms). For tests and small tables. */
export async function readTable(
  db: Database,
  snapshot: Snapshot,
  dataset: StoredDataset,
  tableName: string,
  where = 'true',
): Promise<Record<string, unknown>[]> {
  const table = dataset.tables[tableName];
  if (!table) throw new Error(`${dataset.name} has no table ${tableName}`);
  const order = table.sortBy.map(quoteIdentifier).join(', ');
  const rows = await db.rows(
    `SELECT ${readList(table.columns)} FROM ${tableSource(tableFiles(snapshot, dataset.name, tableName))} WHERE ${where} ORDER BY ${order}`,
  );
  const decode = rowDecoder(table.columns);
  return rows.map((row) => decode(row));
}
