/**
 * A view of a table on its page (TableView.astro): the filters, the sort and the page the visitor
 * chose, and the SQL each of them makes. The page shows that SQL and runs it in the browser; any
 * DuckDB over the published Parquet gives the same rows for it.
 */

/** A column as the page knows it: its name and its type in the browser's DuckDB. */
export interface ViewColumn {
  readonly name: string;
  readonly type: string;
}

/** One filter on one column; values are text, as the page shows them, cast by DuckDB to the column's type. */
export type Filter =
  | { readonly column: string; readonly kind: 'equals'; readonly value: string }
  | { readonly column: string; readonly kind: 'range'; readonly from?: string; readonly to?: string }
  | { readonly column: string; readonly kind: 'contains'; readonly text: string }
  | { readonly column: string; readonly kind: 'null' }
  | { readonly column: string; readonly kind: 'not-null' };
export type FilterKind = Filter['kind'];
export const filterKinds: readonly FilterKind[] = ['equals', 'range', 'contains', 'null', 'not-null'];

export interface ViewState {
  readonly filters: readonly Filter[];
  readonly sort?: { readonly column: string; readonly descending: boolean };
  /** The page shown, from 0. */
  readonly page: number;
}
export const wholeTable: ViewState = { filters: [], page: 0 };

/** Rows a page holds. */
export const PAGE_ROWS = 500;

export const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;
export const quoteText = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** A filter as a condition. Literals are text: DuckDB casts them to the column's type, so `price >= '100.5'` compares numbers. */
export function conditionSql(filter: Filter): string {
  const column = quoteIdentifier(filter.column);
  switch (filter.kind) {
    case 'equals':
      return `${column} = ${quoteText(filter.value)}`;
    case 'range':
      return [filter.from !== undefined && `${column} >= ${quoteText(filter.from)}`, filter.to !== undefined && `${column} <= ${quoteText(filter.to)}`]
        .filter(Boolean)
        .join(' AND ');
    case 'contains':
      // contains() takes the text as it is: no LIKE wildcards to escape; lower() on both sides for any case.
      return `contains(lower(CAST(${column} AS VARCHAR)), lower(${quoteText(filter.text)}))`;
    case 'null':
      return `${column} IS NULL`;
    case 'not-null':
      return `${column} IS NOT NULL`;
  }
}

/** A range with neither end filters nothing: it is left out. */
const effective = (filters: readonly Filter[]) => filters.filter((filter) => filter.kind !== 'range' || filter.from !== undefined || filter.to !== undefined);

export function whereSql(filters: readonly Filter[]): string {
  const conditions = effective(filters).map(conditionSql);
  return conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '';
}

/**
 * The order of a sorted view: the column, NULLs last either way (DuckDB's default, written out),
 * then the table's key, so that rows equal in the column still come in one order everywhere.
 */
export function orderSql(sort: ViewState['sort'], key: readonly string[]): string {
  if (!sort) return '';
  const ties = key.filter((column) => column !== sort.column).map(quoteIdentifier);
  return ` ORDER BY ${[`${quoteIdentifier(sort.column)}${sort.descending ? ' DESC' : ''} NULLS LAST`, ...ties].join(', ')}`;
}

/** Every row of the view (what the downloads hold). Unsorted, rows come in the published files' order. */
export const viewSql = (table: string, state: ViewState, key: readonly string[]) =>
  `SELECT * FROM ${quoteIdentifier(table)}${whereSql(state.filters)}${orderSql(state.sort, key)}`;

/** The rows of the view's page: what the page shows, and the SQL it offers to open in the query page. */
export const pageSql = (table: string, state: ViewState, key: readonly string[]) =>
  `${viewSql(table, state, key)} LIMIT ${PAGE_ROWS} OFFSET ${state.page * PAGE_ROWS}`;

export const countSql = (table: string, filters: readonly Filter[]) => `SELECT count(*) AS rows FROM ${quoteIdentifier(table)}${whereSql(filters)}`;

/**
 * The last value of the sort column on the page: asked first, it reads that column alone. The
 * page's rows all have a value at or before it, so adding that as a condition (`boundedPageSql`)
 * lets row groups whose statistics lie past it go unread.
 */
export function boundarySql(table: string, state: ViewState): string | undefined {
  if (!state.sort) return undefined;
  const column = quoteIdentifier(state.sort.column);
  return `SELECT ${column} AS value FROM ${quoteIdentifier(table)}${whereSql(state.filters)} ORDER BY ${column}${state.sort.descending ? ' DESC' : ''} NULLS LAST LIMIT 1 OFFSET ${(state.page + 1) * PAGE_ROWS - 1}`;
}

/** Whether a column's values can bound a sorted page: its text, as a literal, casts back to the same value (not so for lists). */
export const boundable = (column: ViewColumn) =>
  /^(U?(TINYINT|SMALLINT|INTEGER|BIGINT)|DOUBLE|FLOAT|DECIMAL.*|DATE|TIMESTAMP|VARCHAR|BOOLEAN)$/.test(column.type);

/** The page's SQL with the boundary as a further filter: the same rows (ties at the boundary kept), fewer row groups read. */
export function boundedPageSql(table: string, state: ViewState, key: readonly string[], boundary: string | null | undefined): string {
  if (!state.sort || boundary === null || boundary === undefined) return pageSql(table, state, key);
  const bound: Filter = state.sort.descending
    ? { column: state.sort.column, kind: 'range', from: boundary }
    : { column: state.sort.column, kind: 'range', to: boundary };
  return pageSql(table, { ...state, filters: [...state.filters, bound] }, key);
}

/** How many distinct values a facet lists. */
export const FACET_VALUES = 10;

/**
 * A column's most frequent values among the view's rows, with their counts, most frequent first.
 * Filters on the column itself are left out, so that its other values stay to be chosen.
 */
export const facetSql = (table: string, column: string, filters: readonly Filter[]) =>
  `SELECT ${quoteIdentifier(column)} AS value, count(*) AS count FROM ${quoteIdentifier(table)}${whereSql(
    filters.filter((filter) => filter.column !== column),
  )} GROUP BY 1 ORDER BY 2 DESC, 1 NULLS LAST LIMIT ${FACET_VALUES}`;

/** The filter a click on a facet's value adds: that value, or no value. */
export const facetFilter = (column: string, value: string | null): Filter => (value === null ? { column, kind: 'null' } : { column, kind: 'equals', value });

/** Which filters a column's type takes: ranges for what is ordered, contains for what reads as text. */
export function kindsFor(column: ViewColumn): FilterKind[] {
  const ordered = /^(U?(TINYINT|SMALLINT|INTEGER|BIGINT)|DOUBLE|FLOAT|DECIMAL.*|DATE|TIMESTAMP.*|VARCHAR)$/.test(column.type);
  const list = column.type.endsWith('[]');
  return filterKinds.filter((kind) => (kind === 'range' ? ordered && column.type !== 'VARCHAR' : kind === 'equals' ? !list : true));
}
