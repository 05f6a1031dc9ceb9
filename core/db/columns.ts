import type { Column, Columns } from '../table.ts';
import { quoteIdentifier } from './duckdb.ts';

/**
 * How each column kind crosses between Parquet and JS rows: the SQL that reads it into its JS
 * value, and the type and SQL that take it from newline-delimited JSON into its Parquet type.
 */

export function readExpression(name: string, column: Column): string {
  const q = quoteIdentifier(name);
  switch (column.kind) {
    case 'day':
      return `strftime(${q}, '%Y-%m-%d') AS ${q}`;
    case 'instant':
      return `CAST(epoch_ms(${q}) AS DOUBLE) AS ${q}`;
    case 'decimal':
      return `CAST(${q} AS VARCHAR) AS ${q}`;
    case 'json':
      // Read as JSON text; where rows are read as JSON (the server) it is embedded, not quoted.
      return `CAST(${q} AS JSON) AS ${q}`;
    default:
      return q;
  }
}

export const readList = (columns: Columns) =>
  Object.entries(columns)
    .map(([name, c]) => readExpression(name, c))
    .join(', ');

/**
 * The table's JS rows for rows as DuckDB returns them for `readList`: one decoder per table, so the
 * columns are sorted by kind once, not per row. Rows are decoded in place: they are read for this
 * alone, and a copy of each of millions of rows is work for the collector.
 */
export function rowDecoder(columns: Columns): (row: Record<string, unknown>) => Record<string, unknown> {
  const json: string[] = [];
  const scalar: string[] = [];
  for (const [name, column] of Object.entries(columns)) (column.kind === 'json' ? json : scalar).push(name);
  return (row) => {
    for (const name of json) {
      const value = row[name];
      if (typeof value === 'string') row[name] = JSON.parse(value);
    }
    for (const name of scalar) {
      const value = row[name];
      if (typeof value === 'bigint') row[name] = Number(value);
    }
    return row;
  };
}

/** The type a column has in the JSON lines a table writer stages. */
export function stagingType(column: Column): string {
  switch (column.kind) {
    case 'day':
    case 'decimal':
      return 'VARCHAR';
    case 'instant':
      return 'BIGINT';
    default:
      return column.sqlType;
  }
}

export function writeExpression(name: string, column: Column): string {
  const q = quoteIdentifier(name);
  switch (column.kind) {
    case 'day':
    case 'decimal':
      return `CAST(${q} AS ${column.sqlType}) AS ${q}`;
    case 'instant':
      return `make_timestamptz(${q} * 1000) AS ${q}`;
    default:
      return q;
  }
}
