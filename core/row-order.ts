import type { Columns } from './table.ts';
import type { TableSpec } from './table.ts';

/**
 * The order rows of a table are stored in: its declared sort, then its key (unique, so that is
 * enough), or without a key every other column, so that even equal sort keys come out the same
 * way every run. Rows written in this order are stored without re-sorting.
 */
export function rowOrder(table: Pick<TableSpec<Columns>, 'columns' | 'sortBy' | 'key'>): string[] {
  const rest = (table.key ?? Object.keys(table.columns)).filter((name) => !table.sortBy.includes(name));
  return [...table.sortBy, ...rest];
}

export type SortKey = readonly unknown[];

function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1; // nulls last, as DuckDB sorts them
  if (b === null || b === undefined) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const [x, y] = [typeof a === 'string' ? a : JSON.stringify(a), typeof b === 'string' ? b : JSON.stringify(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

export function compareKeys(a: SortKey, b: SortKey): number {
  for (let i = 0; i < a.length; i++) {
    const order = compareValues(a[i], b[i]);
    if (order !== 0) return order;
  }
  return 0;
}

export const keyOf = (row: Readonly<Record<string, unknown>>, columns: readonly string[]): SortKey => columns.map((c) => row[c]);

/** A batch of rows in a table's order, for generators that sort a batch before writing it. */
export function inRowOrder<R extends Readonly<Record<string, unknown>>>(
  table: Pick<TableSpec<Columns>, 'columns' | 'sortBy' | 'key'>,
  rows: readonly R[],
): R[] {
  const order = rowOrder(table);
  return rows
    .map((row) => ({ key: keyOf(row, order), row }))
    .sort((a, b) => compareKeys(a.key, b.key))
    .map(({ row }) => row);
}
