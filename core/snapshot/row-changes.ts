import type { Database } from '../db/duckdb.ts';
import { quoteIdentifier, quoteString } from '../db/duckdb.ts';
import type { Table } from '../table.ts';
import { daysOf, RECORDS_LISTED, recordsOf, type DayChanges, type RecordChanges } from './changed-records.ts';
import { tableSource } from './read.ts';

/** What a diff finds in the rows of one group of files, and so in a whole table: see diff.ts. */
export interface RowChanges {
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

const EXAMPLES = 5;

/** Two groups' findings as one: counts added, lists merged in key order and bounded again. */
export function merged<T extends RowChanges>(into: T, part: RowChanges): T {
  const keys = (a: readonly string[], b: readonly string[], most: number) => [...a, ...b].sort().slice(0, most);
  const columns: Record<string, number> = { ...into.columns };
  for (const [column, rows] of Object.entries(part.columns)) columns[column] = (columns[column] ?? 0) + rows;
  const days = new Map((into.days ?? []).map((day) => [day.day, { ...day }]));
  for (const day of part.days ?? []) {
    const known = days.get(day.day);
    if (known) [known.added, known.removed, known.changed] = [known.added + day.added, known.removed + day.removed, known.changed + day.changed];
    else days.set(day.day, { ...day });
  }
  const records = into.records &&
    part.records && {
      added: keys(into.records.added, part.records.added, RECORDS_LISTED),
      removed: keys(into.records.removed, part.records.removed, RECORDS_LISTED),
      changed: [...into.records.changed, ...part.records.changed].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).slice(0, RECORDS_LISTED),
      truncated:
        into.records.truncated ||
        part.records.truncated ||
        [into.added + part.added, into.removed + part.removed, into.changed + part.changed].some((n) => n > RECORDS_LISTED),
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
    ...(into.days
      ? { days: [...days.values()].sort((a, b) => (a.day === b.day ? 0 : a.day === null ? 1 : b.day === null ? -1 : a.day < b.day ? -1 : 1)) }
      : {}),
  };
}

/** Rows of one group of files matched by key (or, without a key, compared whole): see diffSnapshots. */
export async function diffRows(
  db: Database,
  before: string[],
  after: string[],
  key: readonly string[] | null,
  definition: Table | undefined,
  published: 'records' | 'days' | 'counts',
): Promise<RowChanges> {
  const pulled = Object.entries(definition?.columns ?? {})
    .filter(([, column]) => 'pulled' in column)
    .map(([column]) => column);
  const nothing: RowChanges = { added: 0, removed: 0, changed: 0, reordered: 0, columns: {}, examples: { added: [], removed: [], changed: [] } };

  // A side with no file left to read is the other's columns with no rows.
  const relation = (files: string[], other: string[]) =>
    files.length ? `SELECT * FROM ${tableSource(files)}` : `SELECT * FROM ${tableSource(other)} WHERE false`;
  await db.run(`CREATE OR REPLACE TEMP VIEW __before AS ${relation(before, after)}`);
  await db.run(`CREATE OR REPLACE TEMP VIEW __after AS ${relation(after, before)}`);
  const columnsOf = async (view: string) =>
    (await db.rows<{ column_name: string }>(`SELECT column_name FROM (DESCRIBE ${view})`)).map((row) => row.column_name);
  const [beforeColumns, afterColumns] = [await columnsOf('__before'), await columnsOf('__after')];
  const shared = afterColumns.filter((column) => beforeColumns.includes(column));
  const data = shared.filter((column) => !pulled.includes(column) && !(key ?? []).includes(column));

  // The day a row stands on, in UTC (the session's zone), from its time column.
  const time = definition?.timeColumn && shared.includes(definition.timeColumn) ? definition.timeColumn : undefined;
  const dayOf = (row: string) => (time ? `strftime(CAST(${row}${quoteIdentifier(time)} AS DATE), '%Y-%m-%d')` : 'NULL');

  if (!key) {
    const list = shared
      .filter((column) => !pulled.includes(column))
      .map(quoteIdentifier)
      .join(', ');
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
  const changedColumns = data.length
    ? `list_filter([${data.map((column) => `CASE WHEN ${differs(column)} THEN ${quoteString(column)} END`).join(', ')}], c -> c IS NOT NULL)`
    : `[]::VARCHAR[]`;
  const movedOnly =
    pulled
      .filter((column) => shared.includes(column))
      .map(differs)
      .join(' OR ') || 'false';
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
  const columns = await db.rows<{ column: string; rows: bigint }>(
    `SELECT "column", count(*) AS "rows" FROM (SELECT unnest(columns) AS "column" FROM __changes WHERE change = 'changed') GROUP BY ALL ORDER BY "rows" DESC, "column"`,
  );
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
