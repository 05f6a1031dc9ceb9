import type { Database } from '../db/duckdb.ts';
import { quoteIdentifier, quoteString } from '../db/duckdb.ts';
import type { Column, Table } from '../table.ts';

/**
 * The records behind a table's changes (see row-changes.ts), for a diff with `detail`: the keys
 * added and removed and each changed record's values either side, or the rows changed per day.
 * Both read the temporary table `__changes` that diffRows leaves for them.
 */

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

/** Most records of each kind of change listed per table with `detail`: a day's pull lists all of its own; a first-ever diff of a register would not fit a page. */
export const RECORDS_LISTED = 1000;

/** The records behind __changes, by key: keys added and removed, and each changed one's columns with their values either side. */
export async function recordsOf(db: Database, key: readonly string[], data: readonly string[], table: Table): Promise<RecordChanges> {
  const listed = `change <> 'changed' OR len(columns) > 0`;
  const keysOf = async (change: string) =>
    (await db.rows<{ key: string }>(`SELECT key FROM __changes WHERE change = ${quoteString(change)} ORDER BY key LIMIT ${RECORDS_LISTED + 1}`)).map(
      (row) => row.key,
    );
  const [added, removed] = [await keysOf('added'), await keysOf('removed')];
  // The changed rows' keys, then both sides' values of the columns that changed, read by key.
  await db.run(
    `CREATE OR REPLACE TEMP TABLE __listed AS SELECT key, columns FROM __changes WHERE change = 'changed' AND (${listed}) ORDER BY key LIMIT ${RECORDS_LISTED + 1}`,
  );
  const keyText = (row: string) => `concat_ws('/', ${key.map((column) => `CAST(${row}.${quoteIdentifier(column)} AS VARCHAR)`).join(', ')})`;
  const valuesOf = async (view: string) => {
    const columns = data.map((name) => `${jsonValue(`v.${quoteIdentifier(name)}`, table.columns[name])} AS ${quoteIdentifier(name)}`);
    const rows = await db.rows<Record<string, string | null>>(
      `SELECT l.key, ${columns.join(', ') || 'NULL AS __none'} FROM __listed l JOIN ${view} v ON l.key = ${keyText('v')}`,
    );
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
export async function daysOf(db: Database): Promise<DayChanges[]> {
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
