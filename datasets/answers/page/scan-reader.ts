import { quoteIdentifier } from '../../../core/db/duckdb.ts';
import type { InProcessSource } from '../kind.ts';
import { MAX_CODES, RowScan, ScannedColumnBuilder, scannedSql, type ScannedColumn } from './scan.ts';

/**
 * A paged table's scanned columns (scan.ts), read from its stored table in row order: what the
 * page kind keeps in the server's process. Undefined where no column maps onto numbers.
 */
export async function readRowScan({ connection, from, table, columns, rows }: InProcessSource): Promise<RowScan | undefined> {
  let read = columns.flatMap((name) => {
    const sql = scannedSql(quoteIdentifier(name), table.columns[name]!);
    return sql ? [{ name, sql }] : [];
  });
  // Text with too many values to be codes (ids) is left to DuckDB, counted there rather than read here.
  const texts = read.filter(({ name }) => table.columns[name]!.kind === 'varchar');
  if (texts.length) {
    const [counts] = (
      await connection.runAndReadAll(`SELECT ${texts.map(({ name }) => `count(DISTINCT ${quoteIdentifier(name)})`).join(', ')} FROM ${from}`)
    ).getRows();
    const tooMany = new Set(texts.filter((_, i) => Number(counts![i]) > MAX_CODES).map(({ name }) => name));
    read = read.filter(({ name }) => !tooMany.has(name));
  }
  if (!read.length) return undefined;
  const builders = read.map(({ name }) => new ScannedColumnBuilder(table.columns[name]!, rows));
  const result = await connection.stream(`SELECT ${read.map((r) => r.sql).join(', ')} FROM ${from} ORDER BY rowid`);
  for await (const chunk of result.yieldRowsJs()) {
    for (const row of chunk) for (let i = 0; i < builders.length; i++) builders[i]!.add(row[i]);
  }
  const scanned = new Map<string, ScannedColumn>();
  read.forEach(({ name }, i) => {
    const column = builders[i]!.done();
    if (column) scanned.set(name, column);
  });
  return scanned.size ? new RowScan(rows, scanned) : undefined;
}
