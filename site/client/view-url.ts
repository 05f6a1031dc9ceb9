import { wholeTable, type Filter, type ViewColumn, type ViewState } from './table-view.ts';

/**
 * A table page's view in its URL's query, so that a filtered, sorted page can be shared and comes
 * back as it was: `?sort=-gross_price&eq.market_type_value=rynekWtorny&from.document_date=2024-01-01&page=2`.
 * A parameter names its kind and column: `eq.`, `from.`, `to.`, `has.` (contains), `null.`,
 * `notnull.`; `sort` is a column, `-` first for descending. Columns the table lacks are dropped.
 */

const PREFIX = { equals: 'eq', contains: 'has', null: 'null', 'not-null': 'notnull' } as const;

/** The view's query string, without `?`; empty for the whole table unsorted. */
export function viewQuery(state: ViewState): string {
  const params = new URLSearchParams();
  if (state.sort) params.append('sort', `${state.sort.descending ? '-' : ''}${state.sort.column}`);
  for (const filter of state.filters) {
    if (filter.kind === 'equals') params.append(`eq.${filter.column}`, filter.value);
    else if (filter.kind === 'contains') params.append(`has.${filter.column}`, filter.text);
    else if (filter.kind === 'range') {
      if (filter.from !== undefined) params.append(`from.${filter.column}`, filter.from);
      if (filter.to !== undefined) params.append(`to.${filter.column}`, filter.to);
    } else params.append(`${PREFIX[filter.kind]}.${filter.column}`, '');
  }
  if (state.page > 0) params.append('page', String(state.page + 1));
  return params.toString();
}

/** The view a query string (`?…` or without) describes, for a table of these columns. */
export function viewOfQuery(query: string, columns: readonly ViewColumn[]): ViewState {
  const known = new Set(columns.map((column) => column.name));
  const filters: Filter[] = [];
  const ranges = new Map<string, { from?: string; to?: string }>();
  let sort: ViewState['sort'];
  let page = 0;
  for (const [name, value] of new URLSearchParams(query)) {
    if (name === 'sort') {
      const column = value.replace(/^-/, '');
      if (known.has(column)) sort = { column, descending: value.startsWith('-') };
      continue;
    }
    if (name === 'page') {
      page = Math.max(0, Math.floor(Number(value)) - 1 || 0);
      continue;
    }
    const dot = name.indexOf('.');
    const [kind, column] = [name.slice(0, dot), name.slice(dot + 1)];
    if (dot < 0 || !known.has(column)) continue;
    if (kind === 'eq') filters.push({ column, kind: 'equals', value });
    else if (kind === 'has') filters.push({ column, kind: 'contains', text: value });
    else if (kind === 'null') filters.push({ column, kind: 'null' });
    else if (kind === 'notnull') filters.push({ column, kind: 'not-null' });
    else if (kind === 'from' || kind === 'to') {
      // A range's two ends are one filter, where its first end stood.
      let range = ranges.get(column);
      if (!range) {
        range = {};
        ranges.set(column, range);
        filters.push({ column, kind: 'range' });
      }
      range[kind] = value;
    }
  }
  const whole = filters.map((filter) => (filter.kind === 'range' ? { ...filter, ...ranges.get(filter.column) } : filter));
  return { ...wholeTable, filters: whole, sort, page };
}
