import { listValue, type DuckDBValue } from '@duckdb/node-api';
import { quoteIdentifier } from '../../../core/db/duckdb.ts';
import type { Column } from '../../../core/table.ts';
import type { BoundingBox } from '../../vocabulary/param.ts';
import { castParam, columnsFor, renderRows, resourceOf, selectList, SerializedJson, type AnswerRequest, type RenderedResource } from '../serving.ts';
import { boundAtScale, SHAPES_COLUMN, textColumn, type Filter } from './filters.ts';
import type { PageAnswer } from './declaration.ts';
import { offsetPage, offsetPageAround } from './offset-page.ts';
import { mirroredNext } from '../envelope.ts';
import { shapesIntersectBox } from './shapes.ts';
import type { RowScan } from './scan.ts';

/**
 * Offset pages in list order. A page of rows kept rendered whose filters are all plain
 * equalities and ranges is found by a scan of typed columns in this process (scan.ts); any
 * other is found in one statement: the filters run over the in-memory copy of the columns they
 * read, giving the matching row numbers and their count; the page's rows are then read from the
 * stored table, which holds rows in list order, by those row numbers.
 */
export async function answerPage(request: AnswerRequest, answer: PageAnswer) {
  const resource = resourceOf(request.dataset, answer.resource);
  const limit = request.params.limit as number;
  const offset = request.params.offset as number;
  const nextOf = (count: number, total: number) =>
    offset + count < total
      ? mirroredNext(request.envelope, request.endpoint, request.path, request.query, { limit, offset: offset + limit }, request.context)
      : null;
  const rendered = request.served.rendered(request.dataset, resource);
  // The rows' JSON is read from the record file by row number (through DuckDB, the page's texts cost twice what finding them did).
  const renderedPage = (texts: RenderedResource, rows: readonly number[], total: number) => {
    const [before, after] = offsetPageAround({ limit, offset, count: rows.length, total, next: nextOf(rows.length, total) }, request.envelope).map((text) =>
      Buffer.from(text),
    );
    return new SerializedJson(texts.records.withJoined(rows, COMMA, (items) => texts.withBase(items, request.base, before!, after!)));
  };
  const scan = request.served.inProcess(request.endpoint) as RowScan | undefined;
  const scanned = rendered && scan?.page(answer.filters, request.params, limit, offset);
  if (scanned) return renderedPage(rendered, scanned.rows, scanned.total);

  const table = request.dataset.tables[resource.table]!;
  const source = request.served.inMemory(request.dataset, resource.table);
  const conditions: string[] = [];
  const values: DuckDBValue[] = [];
  const bind = (value: DuckDBValue) => `$${values.push(value)}`;
  let box: { filter: Extract<Filter, { kind: 'intersects' }>; value: BoundingBox } | undefined;

  const stored = request.served.source(request.dataset, resource);
  for (const [param, filter] of Object.entries(answer.filters)) {
    const value = request.params[param];
    if (value === undefined) continue;
    if (filter.kind === 'intersects') box = { filter, value: value as BoundingBox };
    else conditions.push(condition(filter, value as string | number, table.columns[filter.column]!, bind, stored));
  }
  if (box) conditions.push(await boxCondition(request, box.filter, box.value, source, conditions, values, bind));

  const where = conditions.length ? conditions.join(' AND ') : 'true';
  const page = `WITH hit AS MATERIALIZED (SELECT rowid AS r FROM ${source} WHERE ${where}),
      page AS (SELECT r FROM hit ORDER BY r LIMIT ${bind(limit)} OFFSET ${bind(offset)})`;
  const onPage = `rowid BETWEEN (SELECT min(r) FROM page) AND (SELECT max(r) FROM page) AND rowid IN (SELECT r FROM page)`;

  if (rendered) {
    // DuckDB finds the rows and counts them.
    const [found] = await request.connection.rows(
      `${page} SELECT (SELECT count(*) FROM hit) AS "__total", (SELECT list(r ORDER BY r) FROM page) AS "__rows"`,
      values,
    );
    return renderedPage(rendered, ((found!.__rows ?? []) as (bigint | number)[]).map(Number), Number(found!.__total));
  }
  const rows = await request.connection.rows(
    `${page} SELECT (SELECT count(*) FROM hit) AS "__total", ${selectList(columnsFor(request, resource))} FROM ${stored} WHERE ${onPage} ORDER BY rowid`,
    values,
    'json', // wide rows of strings
  );
  const total = rows[0]
    ? Number(rows[0].__total)
    : Number((await request.connection.rows(`SELECT count(*) AS "__total" FROM ${source} WHERE ${where}`, values.slice(0, -2)))[0]!.__total);
  return offsetPage(renderRows(request, resource, rows), { limit, offset, total, next: nextOf(rows.length, total) }, request.envelope);
}

const COMMA = 0x2c;

/** A filter as SQL over the in-memory copy; `stored` names the stored table, whose rows match it by row number. */
function condition(
  filter: Exclude<Filter, { kind: 'intersects' }>,
  value: string | number,
  column: Column,
  bind: (v: DuckDBValue) => string,
  stored: string,
): string {
  const name = quoteIdentifier(filter.column);
  switch (filter.kind) {
    case 'equals':
      return `${name} = ${castParam(column, bind(value))}`;
    case 'atLeast':
      return `${name} >= ${castParam(column, bind(boundAtScale(column, value, 'up')))}`;
    case 'atMost':
      return `${name} <= ${castParam(column, bind(boundAtScale(column, value, 'down')))}`;
    case 'listContains':
      return `rowid IN (SELECT rowid FROM ${stored} WHERE list_contains(${name}, ${bind(value)}))`;
    case 'partOfAny':
      return `contains(${quoteIdentifier(textColumn(filter.column))}, lower(${bind(value)}))`;
  }
}

/**
 * Rows whose extent lies in the box, or with a vertex in it, intersect it: SQL finds those. The
 * few left whose extent only overlaps the box (a box inside a parcel, or crossing it between
 * vertices) are tested shape by shape here. A row without shapes is taken on its extent.
 */
async function boxCondition(
  request: AnswerRequest,
  filter: Extract<Filter, { kind: 'intersects' }>,
  box: BoundingBox,
  source: string,
  conditions: readonly string[],
  values: readonly DuckDBValue[],
  bind: (v: DuckDBValue) => string,
): Promise<string> {
  const [minLon, minLat, maxLon, maxLat] = filter.extent.map(quoteIdentifier);
  const b = { minLon: bind(box.minLon), minLat: bind(box.minLat), maxLon: bind(box.maxLon), maxLat: bind(box.maxLat) };
  const overlaps = `${minLon} <= ${b.maxLon} AND ${maxLon} >= ${b.minLon} AND ${minLat} <= ${b.maxLat} AND ${maxLat} >= ${b.minLat}`;
  const within = `${minLon} >= ${b.minLon} AND ${maxLon} <= ${b.maxLon} AND ${minLat} >= ${b.minLat} AND ${maxLat} <= ${b.maxLat}`;
  const shapes = quoteIdentifier(SHAPES_COLUMN);
  const vertexIn = `list_bool_or(list_transform(${shapes}, ring -> list_bool_or(list_transform(range(1, len(ring), 2), i -> ring[i] BETWEEN ${b.minLon} AND ${b.maxLon} AND ring[i + 1] BETWEEN ${b.minLat} AND ${b.maxLat}))))`;
  const undecided = await request.connection.rows(
    `SELECT rowid AS "row", ${shapes} AS "shapes" FROM ${source} WHERE ${[...conditions, overlaps, `NOT (${within})`, `NOT coalesce(${vertexIn}, false)`].join(' AND ')}`,
    [...values],
  );
  const hits = undecided.filter((row) => {
    const rings = ((row.shapes ?? []) as number[][]).map((flat) =>
      Array.from({ length: flat.length / 2 }, (_, i): [number, number] => [flat[2 * i]!, flat[2 * i + 1]!]),
    );
    return rings.length === 0 || shapesIntersectBox(rings, box);
  });
  // The rows tested here overlap the box too: so `overlaps` stays a condition of its own, which
  // DuckDB applies in the scan, and only rows that pass it are read further (their shapes above all).
  const tested = hits.length ? ` OR list_contains(${bind(listValue(hits.map((row) => row.row as bigint)))}, rowid)` : '';
  return `(${overlaps} AND (${within} OR coalesce(${vertexIn}, false)${tested}))`;
}
