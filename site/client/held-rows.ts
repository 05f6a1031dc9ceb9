import type { Connection } from './duckdb-start.ts';
import type { CatalogueTable } from './downloads-catalogue.ts';
import { browserType, createTableSql, quoteIdentifier } from './parquet-table.ts';
import { partKey, type Need, type Part } from './parts-needed.ts';
import type { CatalogueFile } from './scan-plan.ts';

/**
 * The tables as queries see them: each table's name is a view of the rows read so far, which only
 * grow (row-loading.ts adds to them). Beside them, empty tables of the same shapes that queries
 * are planned over (query-scans.ts).
 */

/** Where the empty tables queries are planned over are. */
export const PLAN_SCHEMA = 'odsnap_plan';
/** Where the rows read so far are: a table's name is a view of them (see Held). */
export const ROWS_SCHEMA = 'odsnap_rows';

/**
 * What a table holds now, which only grows: the row groups read, each with the columns read of
 * it (the rest NULL), are rows of its table in ROWS_SCHEMA; files counted (count(*) reads no
 * column) add rows with no value for their rows not read. The table's own name is a view of both.
 * Rows more than a query needs do no harm: the filters that left their parts out drop them too.
 */
export interface Held {
  readonly parts: ReadonlyMap<string, { readonly part: Part; readonly columns: ReadonlySet<string> }>;
  readonly counted: ReadonlyMap<string, CatalogueFile>;
}
export const nothingHeld: Held = { parts: new Map(), counted: new Map() };

/** Rows of each file that are rows read. */
function rowsRead(held: Held): Map<string, number> {
  const rows = new Map<string, number>();
  for (const { part } of held.parts.values()) rows.set(part.file.url, (rows.get(part.file.url) ?? 0) + part.rowEnd - part.rowStart);
  return rows;
}

/** Whether the table holds these parts of these columns (with no column: all the rows of these files). */
export function covered(held: Held, { columns, parts }: Need): boolean {
  if (columns.length)
    return parts.every((part) => {
      const read = held.parts.get(partKey(part))?.columns;
      return read !== undefined && columns.every((column) => read.has(column.name));
    });
  const read = rowsRead(held);
  return parts.every((part) => held.counted.has(part.file.url) || read.get(part.file.url) === part.file.rows);
}

/** The view named as the table: its rows read and, made as they are read (not stored), its counted rows with no value. */
export function viewSql(table: CatalogueTable, held: Held): string {
  const read = rowsRead(held);
  const empty = [...held.counted.values()].reduce((sum, file) => sum + Math.max(0, file.rows - (read.get(file.url) ?? 0)), 0);
  const name = quoteIdentifier(table.sqlName);
  const nulls = table.columns.map((column) => `NULL::${browserType(column)} AS ${quoteIdentifier(column.name)}`).join(', ');
  return `CREATE OR REPLACE VIEW ${name} AS SELECT * FROM ${ROWS_SCHEMA}.${name}${empty > 0 ? ` UNION ALL SELECT ${nulls} FROM range(${empty})` : ''}`;
}

/**
 * Every table, holding nothing yet, and its empty twin to plan over. Queries are planned over the
 * twins, not over the views named as the tables: a plan would show a view's rows with no value as
 * no scan of the table.
 */
export async function createTables(connection: Connection, tables: readonly CatalogueTable[]): Promise<void> {
  await connection.query(`CREATE SCHEMA ${ROWS_SCHEMA}; CREATE SCHEMA ${PLAN_SCHEMA}`);
  for (const table of tables) {
    await connection.query(`${createTableSql(table.sqlName, table.columns, ROWS_SCHEMA)}; ${createTableSql(table.sqlName, table.columns, PLAN_SCHEMA)}`);
    await connection.query(viewSql(table, nothingHeld));
  }
}
