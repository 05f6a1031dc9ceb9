import { quoteIdentifier } from '../../core/db/duckdb.ts';
import type { Table } from '../../core/table.ts';

/**
 * Items are fingerprinted in buckets of rows by key (DuckDB's hash of it), so that a rebuild
 * finds the few that changed without reading every row's print: a new or changed row changes its
 * bucket alone, wherever it sits in row order.
 */
export const BUCKETS = 4096;

/** DuckDB's hash of a row's columns (64 bits). */
export const rowHash = (columns: readonly string[]) => `hash(${columns.map(quoteIdentifier).join(', ')})`;

/**
 * SQL: a row's key as text (`k`), its bucket (`b`) and its print (`h`, the hash of every column
 * of its table, so that one print serves every resource stored in it), each row on its own: the
 * prints tables and the rows streamed with their prints compute them alike. `prefix` goes before
 * the three names.
 */
export function rowPrintSql(table: Table, keyColumn: string, prefix = ''): string {
  const key = `CAST(${quoteIdentifier(keyColumn)} AS VARCHAR)`;
  return `${key} AS ${prefix}k, hash(${key}) % ${BUCKETS} AS ${prefix}b, ${rowHash(Object.keys(table.columns))} AS ${prefix}h`;
}
