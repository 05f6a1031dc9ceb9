import type { Database } from '../db/duckdb.ts';
import { quoteIdentifier, quoteString } from '../db/duckdb.ts';
import { changesOf, type Column, type StoredDataset, type Table } from '../table.ts';
import type { FileManifest, TableManifest } from './manifest.ts';
import { tableSource, type Snapshot } from './read.ts';

/**
 * What changed in each table between two snapshots. A file whose sha256 is the same in both
 * manifests holds the same rows in both and is never read: only the files either side changed
 * are, so a day's pull is compared in seconds however long the history. Rows of a keyed table are
 * matched by key: added, removed, or changed (with the columns that changed); a change only in
 * the columns a pull writes about the record (`pulled`, e.g. its place in the upstream's list) is
 * counted apart, as reordered. Rows of a table without a key are compared whole, as multisets.
 */

export interface TableDiff {
  readonly dataset: string;
  readonly table: string;
  readonly key: readonly string[] | null;
  /** Files compared unread (the same in both), and files read. */
  readonly files: { readonly same: number; readonly read: number };
  readonly added: number;
  readonly removed: number;
  readonly changed: number;
  /** Rows whose only change is in columns a pull writes about them (their place in a list). */
  readonly reordered: number;
  /** How many changed rows each column changed in. */
  readonly columns: Readonly<Record<string, number>>;
  /** A few keys of each kind of change, `/` between a key's parts (keyed tables only). */
  readonly examples: { readonly added: readonly string[]; readonly removed: readonly string[]; readonly changed: readonly string[] };
  /** With `detail`, for a table whose changes are published as records: each one (up to a bound). */
  readonly records?: RecordChanges;
  /** With `detail`, for a table whose changes are published by day: rows added, removed and changed per day of its time column. */
  readonly days?: readonly DayChanges[];
}

/** A changed column's value before and after, as JSON (decimals and days as text, instants as ISO UTC). */
export interface FieldChange {
  readonly old: unknown;
  readonly new: unknown;
}

export interface RecordChanges {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly { readonly key: string; readonly fields: Readonly<Record<string, FieldChange>> }[];
  /** True when a kind of change had more records than are listed (each list keeps the first by key). */
  readonly truncated: boolean;
}

export interface DayChanges {
  /** Null for rows without a time. */
  readonly day: string | null;
  readonly added: number;
  readonly removed: number;
  readonly changed: number;
}

export interface SnapshotDiff {
  readonly from: string;
  readonly to: string;
  readonly tables: readonly TableDiff[];
}

const EXAMPLES = 5;
/** Most records of each kind of change listed per table with `detail`: a day's pull lists all of its own; a first-ever diff of a register would not fit a page. */
export const RECORDS_LISTED = 1000;

export interface DiffOptions {
  readonly dataset?: string;
  readonly onTable?: (name: string) => void;
  /** Also list the records (or count the days) each table's changes are published as (see TableSpec.changes). */
  readonly detail?: boolean;
}

export async function diffSnapshots(db: Database, from: Snapshot, to: Snapshot, datasets: readonly StoredDataset[], options: DiffOptions = {}): Promise<SnapshotDiff> {
  const tables: TableDiff[] = [];
  const names = [...new Set([...Object.keys(from.manifest.datasets), ...Object.keys(to.manifest.datasets)])].filter((name) => options.dataset === undefined || name === options.dataset);
  for (const name of names) {
    const definition = datasets.find((dataset) => dataset.name === name);
    const tableNames = [...new Set([...Object.keys(from.manifest.datasets[name]?.tables ?? {}), ...Object.keys(to.manifest.datasets[name]?.tables ?? {})])];
    for (const table of tableNames) {
      options.onTable?.(`${name}/${table}`);
      tables.push(await diffTable(db, name, table, side(from, name, table), side(to, name, table), definition?.tables[table], options.detail ?? false));
    }
  }
  return { from: from.id, to: to.id, tables };
}

interface Side {
  readonly manifest?: TableManifest;
  /** Absolute paths, by the file's path in the snapshot. */
  readonly files: ReadonlyMap<string, FileManifest & { readonly absolute: string }>;
}

function side(snapshot: Snapshot, dataset: string, table: string): Side {
  const manifest = snapshot.manifest.datasets[dataset]?.tables[table];
  return { manifest, files: new Map((manifest?.files ?? []).map((file) => [file.path, { ...file, absolute: `${snapshot.dir}/${file.path}` }])) };
}

async function diffTable(db: Database, dataset: string, table: string, from: Side, to: Side, definition: Table | undefined, detail: boolean): Promise<TableDiff> {
  const published = detail && definition ? changesOf(definition) : 'counts';
  const same = [...from.files.values()].filter((file) => to.files.get(file.path)?.sha256 === file.sha256);
  const sameSet = new Set(same.map((file) => file.path));
  const changedFiles = (side: Side) => [...side.files.values()].filter((file) => !sameSet.has(file.path));
  const [before, after] = [changedFiles(from), changedFiles(to)];
  const manifest = (to.manifest ?? from.manifest)!;
  let diff: TableDiff = {
    dataset, table, key: manifest.key, files: { same: same.length, read: before.length + after.length }, added: 0, removed: 0, changed: 0, reordered: 0, columns: {}, examples: { added: [], removed: [], changed: [] },
    ...(published === 'records' ? { records: { added: [], removed: [], changed: [], truncated: false } } : published === 'days' ? { days: [] } : {}),
  };
  // Where every partition is of a key column (or, without a key, of the row), a row can only be in
  // the file at the same path on either side: those pairs are compared one at a time, so a day's
  // readings of the city are not held all at once.
  const byPath = manifest.partitionBy.length > 0 && manifest.partitionBy.every((partition) => !manifest.key || manifest.key.includes(partition.column));
  const groups = byPath ? groupedByPath(before, after) : [{ before, after }];
  for (const group of groups) {
    if (!group.before.length && !group.after.length) continue;
    diff = merged(diff, await diffRows(db, group.before.map((f) => f.absolute), group.after.map((f) => f.absolute), manifest.key, definition, published));
  }
  return diff;
}

/** Files of both sides with the same path together, in path order. */
function groupedByPath<F extends { readonly path: string }>(before: readonly F[], after: readonly F[]): { before: F[]; after: F[] }[] {
  const groups = new Map<string, { before: F[]; after: F[] }>();
  const groupOf = (path: string) => groups.get(path) ?? groups.set(path, { before: [], after: [] }).get(path)!;
  for (const file of before) groupOf(file.path).before.push(file);
  for (const file of after) groupOf(file.path).after.push(file);
  return [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, group]) => group);
}

/** What diffRows finds in one group of files. */
type RowsDiff = Pick<TableDiff, 'added' | 'removed' | 'changed' | 'reordered' | 'columns' | 'examples' | 'records' | 'days'>;

/** Two groups' findings as one: counts added, lists merged in key order and bounded again. */
function merged(into: TableDiff, part: RowsDiff): TableDiff {
  const keys = (a: readonly string[], b: readonly string[], most: number) => [...a, ...b].sort().slice(0, most);
  const columns: Record<string, number> = { ...into.columns };
  for (const [column, rows] of Object.entries(part.columns)) columns[column] = (columns[column] ?? 0) + rows;
  const days = new Map((into.days ?? []).map((day) => [day.day, { ...day }]));
  for (const day of part.days ?? []) {
    const known = days.get(day.day);
    if (known) [known.added, known.removed, known.changed] = [known.added + day.added, known.removed + day.removed, known.changed + day.changed];
    else days.set(day.day, { ...day });
  }
  const records = into.records && part.records && {
    added: keys(into.records.added, part.records.added, RECORDS_LISTED),
    removed: keys(into.records.removed, part.records.removed, RECORDS_LISTED),
    changed: [...into.records.changed, ...part.records.changed].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).slice(0, RECORDS_LISTED),
    truncated: into.records.truncated || part.records.truncated || [into.added + part.added, into.removed + part.removed, into.changed + part.changed].some((n) => n > RECORDS_LISTED),
  };
  return {
    ...into,
    added: into.added + part.added,
    removed: into.removed + part.removed,
    changed: into.changed + part.changed,
    reordered: into.reordered + part.reordered,
    columns: Object.fromEntries(Object.entries(columns).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))),
    examples: {
      added: keys(into.examples.added, part.examples.added, EXAMPLES),
      removed: keys(into.examples.removed, part.examples.removed, EXAMPLES),
      changed: keys(into.examples.changed, part.examples.changed, EXAMPLES),
    },
    ...(records ? { records } : {}),
    ...(into.days ? { days: [...days.values()].sort((a, b) => (a.day === b.day ? 0 : a.day === null ? 1 : b.day === null ? -1 : a.day < b.day ? -1 : 1)) } : {}),
  };
}

/** Rows of one group of files matched by key (or, without a key, compared whole): see diffSnapshots. */
async function diffRows(db: Database, before: string[], after: string[], key: readonly string[] | null, definition: Table | undefined, published: 'records' | 'days' | 'counts'): Promise<RowsDiff> {
  const pulled = Object.entries(definition?.columns ?? {}).filter(([, column]) => 'pulled' in column).map(([column]) => column);
  const nothing: RowsDiff = { added: 0, removed: 0, changed: 0, reordered: 0, columns: {}, examples: { added: [], removed: [], changed: [] } };

  // A side with no file left to read is the other's columns with no rows.
  const relation = (files: string[], other: string[]) => (files.length ? `SELECT * FROM ${tableSource(files)}` : `SELECT * FROM ${tableSource(other)} WHERE false`);
  await db.run(`CREATE OR REPLACE TEMP VIEW __before AS ${relation(before, after)}`);
  await db.run(`CREATE OR REPLACE TEMP VIEW __after AS ${relation(after, before)}`);
  const columnsOf = async (view: string) => (await db.rows<{ column_name: string }>(`SELECT column_name FROM (DESCRIBE ${view})`)).map((row) => row.column_name);
  const [beforeColumns, afterColumns] = [await columnsOf('__before'), await columnsOf('__after')];
  const shared = afterColumns.filter((column) => beforeColumns.includes(column));
  const data = shared.filter((column) => !pulled.includes(column) && !(key ?? []).includes(column));

  // The day a row stands on, in UTC (the session's zone), from its time column.
  const time = definition?.timeColumn && shared.includes(definition.timeColumn) ? definition.timeColumn : undefined;
  const dayOf = (row: string) => (time ? `strftime(CAST(${row}${quoteIdentifier(time)} AS DATE), '%Y-%m-%d')` : 'NULL');

  if (!key) {
    const list = shared.filter((column) => !pulled.includes(column)).map(quoteIdentifier).join(', ');
    const only = (a: string, b: string) => `SELECT ${list} FROM ${a} EXCEPT ALL SELECT ${list} FROM ${b}`;
    // Counted by day when published so (the counts are their sums), else counted whole: each side's EXCEPT ALL runs once.
    const days = await db.rows<{ day: string | null; added: bigint; removed: bigint }>(
      `SELECT ${published === 'days' ? 'day' : 'NULL AS day'}, count(*) FILTER (WHERE side = 'added') AS added, count(*) FILTER (WHERE side = 'removed') AS removed
       FROM (SELECT ${dayOf('')} AS day, 'added' AS side FROM (${only('__after', '__before')}) UNION ALL SELECT ${dayOf('')}, 'removed' FROM (${only('__before', '__after')}))
       GROUP BY ALL ORDER BY 1 NULLS LAST`,
    );
    const counted = days.map((row) => ({ day: row.day, added: Number(row.added), removed: Number(row.removed), changed: 0 }));
    const total = (side: 'added' | 'removed') => counted.reduce((sum, row) => sum + row[side], 0);
    return { ...nothing, added: total('added'), removed: total('removed'), ...(published === 'days' ? { days: counted } : {}) };
  }

  // Matched by key over each row's key, place in lists, time and a hash per data column, not the
  // rows themselves: a register's JSON columns (geometry) would make the join hold the table twice.
  // The values of what changed are read back by key (recordsOf).
  // (A 64-bit hash: a changed value hidden by a collision is a chance of 1 in 2^64.)
  const kept = [...key, ...pulled.filter((column) => shared.includes(column)), ...(time && !key.includes(time) ? [time] : [])];
  const hashes = data.filter((column) => !kept.includes(column)).map((column) => `hash(${quoteIdentifier(column)}) AS ${quoteIdentifier(column)}`);
  const hashed = (view: string) => `SELECT ${[...kept.map(quoteIdentifier), ...hashes].join(', ')}, true AS __present FROM ${view}`;
  const keyText = `concat_ws('/', ${key.map((column) => `CAST(coalesce(a.${quoteIdentifier(column)}, b.${quoteIdentifier(column)}) AS VARCHAR)`).join(', ')})`;
  const differs = (column: string) => `a.${quoteIdentifier(column)} IS DISTINCT FROM b.${quoteIdentifier(column)}`;
  const changedColumns = data.length ? `list_filter([${data.map((column) => `CASE WHEN ${differs(column)} THEN ${quoteString(column)} END`).join(', ')}], c -> c IS NOT NULL)` : `[]::VARCHAR[]`;
  const movedOnly = pulled.filter((column) => shared.includes(column)).map(differs).join(' OR ') || 'false';
  await db.run(
    `CREATE OR REPLACE TEMP TABLE __changes AS
     SELECT ${keyText} AS key,
            CASE WHEN a.__present IS NULL THEN 'added' WHEN b.__present IS NULL THEN 'removed' ELSE 'changed' END AS change,
            ${changedColumns} AS columns,
            (${movedOnly}) AS moved,
            coalesce(${dayOf('b.')}, ${dayOf('a.')}) AS day
     FROM (${hashed('__before')}) a
     FULL OUTER JOIN (${hashed('__after')}) b ON ${key.map((column) => `a.${quoteIdentifier(column)} = b.${quoteIdentifier(column)}`).join(' AND ')}`,
  );
  await db.run(`DELETE FROM __changes WHERE change = 'changed' AND len(columns) = 0 AND NOT moved`);
  const counts = await db.rows<{ change: string; rows: bigint; reordered: bigint }>(
    `SELECT change, count(*) FILTER (WHERE change <> 'changed' OR len(columns) > 0) AS rows, count(*) FILTER (WHERE change = 'changed' AND len(columns) = 0) AS reordered FROM __changes GROUP BY change`,
  );
  const count = (change: string) => Number(counts.find((row) => row.change === change)?.rows ?? 0);
  const columns = await db.rows<{ column: string; rows: bigint }>(`SELECT "column", count(*) AS "rows" FROM (SELECT unnest(columns) AS "column" FROM __changes WHERE change = 'changed') GROUP BY ALL ORDER BY "rows" DESC, "column"`);
  const examples = await db.rows<{ change: string; keys: string[] }>(
    `SELECT change, list(key ORDER BY key) AS keys FROM (SELECT change, key, row_number() OVER (PARTITION BY change ORDER BY key) AS n FROM __changes WHERE change <> 'changed' OR len(columns) > 0) WHERE n <= ${EXAMPLES} GROUP BY change`,
  );
  const examplesOf = (change: string) => examples.find((row) => row.change === change)?.keys ?? [];
  const listed = published === 'records' ? { records: await recordsOf(db, key, data, definition!) } : {};
  const days = published === 'days' ? { days: await daysOf(db) } : {};
  await db.run('DROP TABLE __changes');
  return {
    ...nothing,
    ...listed,
    ...days,
    added: count('added'),
    removed: count('removed'),
    changed: count('changed'),
    reordered: Number(counts.find((row) => row.change === 'changed')?.reordered ?? 0),
    columns: Object.fromEntries(columns.map((row) => [row.column, Number(row.rows)])),
    examples: { added: examplesOf('added'), removed: examplesOf('removed'), changed: examplesOf('changed') },
  };
}

/** The records behind __changes, by key: keys added and removed, and each changed one's columns with their values either side. */
async function recordsOf(db: Database, key: readonly string[], data: readonly string[], table: Table): Promise<RecordChanges> {
  const listed = `change <> 'changed' OR len(columns) > 0`;
  const keysOf = async (change: string) =>
    (await db.rows<{ key: string }>(`SELECT key FROM __changes WHERE change = ${quoteString(change)} ORDER BY key LIMIT ${RECORDS_LISTED + 1}`)).map((row) => row.key);
  const [added, removed] = [await keysOf('added'), await keysOf('removed')];
  // The changed rows' keys, then both sides' values of the columns that changed, read by key.
  await db.run(`CREATE OR REPLACE TEMP TABLE __listed AS SELECT key, columns FROM __changes WHERE change = 'changed' AND (${listed}) ORDER BY key LIMIT ${RECORDS_LISTED + 1}`);
  const keyText = (row: string) => `concat_ws('/', ${key.map((column) => `CAST(${row}.${quoteIdentifier(column)} AS VARCHAR)`).join(', ')})`;
  const valuesOf = async (view: string) => {
    const columns = data.map((name) => `${jsonValue(`v.${quoteIdentifier(name)}`, table.columns[name])} AS ${quoteIdentifier(name)}`);
    const rows = await db.rows<Record<string, string | null>>(`SELECT l.key, ${columns.join(', ') || 'NULL AS __none'} FROM __listed l JOIN ${view} v ON l.key = ${keyText('v')}`);
    return new Map(rows.map((row) => [row.key!, row]));
  };
  const [before, after] = [await valuesOf('__before'), await valuesOf('__after')];
  const changes = await db.rows<{ key: string; columns: string[] }>(`SELECT key, columns FROM __listed ORDER BY key`);
  await db.run('DROP TABLE __listed');
  const valueOf = (text: string | null | undefined) => (text == null ? null : JSON.parse(text));
  const changed = changes.map(({ key: id, columns }) => ({
    key: id,
    fields: Object.fromEntries(columns.map((column) => [column, { old: valueOf(before.get(id)?.[column]), new: valueOf(after.get(id)?.[column]) }])),
  }));
  const truncated = [added, removed, changed].some((list) => list.length > RECORDS_LISTED);
  return { added: added.slice(0, RECORDS_LISTED), removed: removed.slice(0, RECORDS_LISTED), changed: changed.slice(0, RECORDS_LISTED), truncated };
}

/** Rows added, removed and changed (reorderings aside) per day of the time column, from __changes. */
async function daysOf(db: Database): Promise<DayChanges[]> {
  const days = await db.rows<{ day: string | null; added: bigint; removed: bigint; changed: bigint }>(
    `SELECT day, count(*) FILTER (WHERE change = 'added') AS added, count(*) FILTER (WHERE change = 'removed') AS removed, count(*) FILTER (WHERE change = 'changed' AND len(columns) > 0) AS changed
     FROM __changes GROUP BY day HAVING added + removed + changed > 0 ORDER BY day NULLS LAST`,
  );
  return days.map((row) => ({ day: row.day, added: Number(row.added), removed: Number(row.removed), changed: Number(row.changed) }));
}

/** A column's value as JSON text, as v1 writes it: decimals and days as text, instants as ISO UTC (the session's zone). */
function jsonValue(value: string, column: Column | undefined): string {
  switch (column?.kind) {
    case 'decimal':
      return `CAST(to_json(CAST(${value} AS VARCHAR)) AS VARCHAR)`;
    case 'day':
      return `CAST(to_json(strftime(${value}, '%Y-%m-%d')) AS VARCHAR)`;
    case 'instant':
      return `CAST(to_json(strftime(${value}, '%Y-%m-%dT%H:%M:%S.%gZ')) AS VARCHAR)`;
    default:
      return `CAST(to_json(${value}) AS VARCHAR)`;
  }
}
