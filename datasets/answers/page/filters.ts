import { quoteIdentifier } from '../../../core/db/duckdb.ts';
import type { Column } from '../../../core/table.ts';

/** How a filter parameter narrows a page, on which column. */
export type Filter =
  | { readonly kind: 'equals'; readonly column: string }
  | { readonly kind: 'atLeast'; readonly column: string }
  | { readonly kind: 'atMost'; readonly column: string }
  /** The parameter is one of the values of a list column. */
  | { readonly kind: 'listContains'; readonly column: string }
  /** The parameter is a case-insensitive part of any value of a list column. */
  | { readonly kind: 'partOfAny'; readonly column: string }
  /**
   * The parameter (a bounding box) intersects the row's shapes: `extent` columns bound them, and
   * the column `shapes` holds its outlines as DOUBLE[][], one list per ring of its coordinates in
   * order, [lon, lat, lon, lat, …] (a point is a ring of one position).
   */
  | { readonly kind: 'intersects'; readonly extent: readonly [string, string, string, string]; readonly shapes: string };

export const filter = {
  equals: (column: string): Filter => ({ kind: 'equals', column }),
  atLeast: (column: string): Filter => ({ kind: 'atLeast', column }),
  atMost: (column: string): Filter => ({ kind: 'atMost', column }),
  listContains: (column: string): Filter => ({ kind: 'listContains', column }),
  partOfAny: (column: string): Filter => ({ kind: 'partOfAny', column }),
  intersects: (extent: readonly [string, string, string, string], shapes: string): Filter => ({ kind: 'intersects', extent, shapes }),
};

/** Columns the serving database derives for filters: the text of a list column, a row's shapes. */
export const textColumn = (column: string) => `${column}__text`;
export const SHAPES_COLUMN = '__shapes';

/** Filters comparing a column with a value: those a page scan in the server's process can answer (page/scan.ts). */
export type Comparison = Extract<Filter, { kind: 'equals' | 'atLeast' | 'atMost' }>;
export const isComparison = (filter: Filter): filter is Comparison => filter.kind === 'equals' || filter.kind === 'atLeast' || filter.kind === 'atMost';

/** The columns a filter reads in the in-memory copy of its table (lists of ids are scanned where stored). */
export function filteredColumns(filter: Filter): string[] {
  switch (filter.kind) {
    case 'partOfAny':
      return [textColumn(filter.column)];
    case 'intersects':
      return [...filter.extent, SHAPES_COLUMN];
    case 'listContains':
      return [];
    default:
      return [filter.column];
  }
}

/** The columns a filter reads of its table as declared. */
export const declaredColumns = (filter: Filter): readonly string[] => (filter.kind === 'intersects' ? [...filter.extent, filter.shapes] : [filter.column]);

/** SQL of the column the serving database makes for a filter, if it needs one. */
export function derivedColumn(filter: Filter): string | undefined {
  if (filter.kind === 'partOfAny') return `lower(array_to_string(${quoteIdentifier(filter.column)}, chr(1))) AS ${quoteIdentifier(textColumn(filter.column))}`;
  if (filter.kind === 'intersects') return `${quoteIdentifier(filter.shapes)} AS ${quoteIdentifier(SHAPES_COLUMN)}`;
  return undefined;
}

/** The number of fraction digits a DECIMAL(p,s) column keeps; undefined for another type. */
export function decimalScale(column: Column): number | undefined {
  const scale = Number(/^DECIMAL\(\d+,(\d+)\)$/.exec(column.sqlType)?.[1]);
  return Number.isInteger(scale) ? scale : undefined;
}

/**
 * A decimal bound with more fraction digits than the column stores, rounded to the column's scale
 * so that it keeps the same rows: up for a lower bound, down for an upper one (a price ≥ 100.123
 * is a price ≥ 100.13). Exact, on the digits: the bound is text, and so are decimals here.
 */
export function boundAtScale(column: Column, value: string | number, toward: 'up' | 'down'): string | number {
  const scale = decimalScale(column);
  const parts = typeof value === 'string' ? /^(-?)(\d+)\.(\d+)$/.exec(value) : null;
  if (!parts || scale === undefined || parts[3]!.length <= scale) return value;
  const [, sign, whole, fraction] = parts as unknown as [string, string, string, string];
  let digits = BigInt(whole + fraction.slice(0, scale));
  // Cutting digits off rounds toward zero: down for a positive bound, up for a negative one.
  const cutAwayFromZero = /[1-9]/.test(fraction.slice(scale)) && (toward === 'up') === (sign === '');
  if (cutAwayFromZero) digits += 1n;
  const text = digits.toString().padStart(scale + 1, '0');
  return `${sign}${scale ? `${text.slice(0, -scale)}.${text.slice(-scale)}` : text}`;
}
