import { listValue, type DuckDBValue } from '@duckdb/node-api';
import type { Answer, Filter } from '../../datasets/core/answer.ts';
import type { BoundingBox } from '../../datasets/core/param.ts';
import { quoteIdentifier } from '../../scripts/db/duckdb.ts';
import { SHAPES_COLUMN, textColumn } from '../served-snapshot.ts';
import { shapesIntersectBox } from '../shapes.ts';
import { castParam, renderRows, resourceOf, columnsFor, selectList, type AnswerRequest } from './request.ts';

type Of<K extends Answer['kind']> = Extract<Answer, { kind: K }>;

/**
 * Offset pages of a table kept in memory in list order: the filters narrow it, the page is the
 * scan's rows after `offset` (no sort: DuckDB keeps insertion order without ORDER BY), and the
 * total comes from the same statement.
 */
export async function answerPage(request: AnswerRequest, answer: Of<'page'>) {
  const resource = resourceOf(request.dataset, answer.resource);
  const table = request.dataset.tables[resource.table]!;
  const source = request.served.source(request.dataset, resource);
  const conditions: string[] = [];
  const values: DuckDBValue[] = [];
  const bind = (value: DuckDBValue) => `$${values.push(value)}`;
  let box: { filter: Extract<Filter, { kind: 'intersects' }>; value: BoundingBox } | undefined;

  for (const [param, filter] of Object.entries(answer.filters)) {
    const value = request.params[param];
    if (value === undefined) continue;
    if (filter.kind === 'intersects') box = { filter, value: value as BoundingBox };
    else conditions.push(condition(filter, value as string | number, table.columns[filter.column]!, bind));
  }
  if (box) conditions.push(await boxCondition(request, table.key?.[0], box.filter, box.value, source, conditions, values, bind));

  const where = conditions.length ? conditions.join(' AND ') : 'true';
  const limit = request.params.limit as number;
  const offset = request.params.offset as number;
  const page = `LIMIT ${bind(limit)} OFFSET ${bind(offset)}`;
  const rows = await request.connection.rows(
    `SELECT (SELECT count(*) FROM ${source} WHERE ${where}) AS "__total", ${selectList(columnsFor(request, resource))} FROM ${source} WHERE ${where} ${page}`,
    values,
  );
  const total = rows[0]
    ? Number(rows[0].__total)
    : Number((await request.connection.rows(`SELECT count(*) AS "__total" FROM ${source} WHERE ${where}`, values.slice(0, -2)))[0]!.__total);
  const items = renderRows(request, resource, rows);
  const next = offset + items.length < total ? request.context.link(request.path, { ...request.query, limit, offset: offset + limit }) : null;
  return { items, pagination: { limit, offset, count: items.length, total, next } };
}

function condition(filter: Exclude<Filter, { kind: 'intersects' }>, value: string | number, column: Parameters<typeof castParam>[0], bind: (v: DuckDBValue) => string): string {
  const name = quoteIdentifier(filter.column);
  switch (filter.kind) {
    case 'equals':
      return `${name} = ${castParam(column, bind(value))}`;
    case 'atLeast':
      return `${name} >= ${castParam(column, bind(value))}`;
    case 'atMost':
      return `${name} <= ${castParam(column, bind(value))}`;
    case 'listContains':
      return `list_contains(${name}, ${bind(value)})`;
    case 'partOfAny':
      return `contains(${quoteIdentifier(textColumn(filter.column))}, lower(${bind(value)}))`;
  }
}

/**
 * Rows whose extent lies inside the box intersect it; rows whose extent only overlaps it are
 * tested shape by shape here, and the page then takes those that passed. A row without shapes
 * is taken on its extent.
 */
async function boxCondition(
  request: AnswerRequest,
  key: string | undefined,
  filter: Extract<Filter, { kind: 'intersects' }>,
  box: BoundingBox,
  source: string,
  conditions: readonly string[],
  values: readonly DuckDBValue[],
  bind: (v: DuckDBValue) => string,
): Promise<string> {
  if (!key) throw new Error(`${request.dataset.name}: an intersects filter needs a table with a key`);
  const [minLon, minLat, maxLon, maxLat] = filter.extent.map(quoteIdentifier);
  const b = { minLon: bind(box.minLon), minLat: bind(box.minLat), maxLon: bind(box.maxLon), maxLat: bind(box.maxLat) };
  const overlaps = `${minLon} <= ${b.maxLon} AND ${maxLon} >= ${b.minLon} AND ${minLat} <= ${b.maxLat} AND ${maxLat} >= ${b.minLat}`;
  const within = `${minLon} >= ${b.minLon} AND ${maxLon} <= ${b.maxLon} AND ${minLat} >= ${b.minLat} AND ${maxLat} <= ${b.maxLat}`;
  const edge = await request.connection.rows(
    `SELECT ${quoteIdentifier(key)} AS "key", ${quoteIdentifier(SHAPES_COLUMN)} AS "shapes" FROM ${source} WHERE ${[...conditions, overlaps, `NOT (${within})`].join(' AND ')}`,
    [...values],
  );
  const hits = edge.filter((row) => {
    const shapes = (row.shapes ?? []) as [number, number][][];
    return shapes.length === 0 || shapesIntersectBox(shapes, box);
  });
  if (!hits.length) return `(${within})`;
  return `(${within} OR list_contains(${bind(listValue(hits.map((row) => row.key as string)))}, ${quoteIdentifier(key)}))`;
}
