import type { DuckDBValue } from '@duckdb/node-api';
import { NotFound, numberedPage, type Answer } from '../../datasets/vocabulary/answer.ts';
import { addDays } from '../../core/calendar.ts';
import { zonedDayStart } from '../../core/zoned-time.ts';
import { quoteIdentifier } from '../../core/db/duckdb.ts';
import { findRow } from './lookup.ts';
import { castParam, columnsFor, renderRows, resourceOf, selectList, type AnswerRequest } from './request.ts';

type Of<K extends Answer['kind']> = Extract<Answer, { kind: K }>;

/** from..to, days read in the request's time zone, as [first instant, instant after the last day). */
export function dayRangeOf(request: AnswerRequest): [number, number] {
  const timeZone = request.params.timezone as string;
  return [zonedDayStart(request.params.from as string, timeZone), zonedDayStart(addDays(request.params.to as string, 1), timeZone)];
}

/** The time range as SQL on a column, binding epoch microseconds. */
export function timeCondition(column: string, [from, to]: [number, number], bind: (v: DuckDBValue) => string): string {
  const name = quoteIdentifier(column);
  return `${name} >= make_timestamptz(CAST(${bind(BigInt(from) * 1000n)} AS BIGINT)) AND ${name} < make_timestamptz(CAST(${bind(BigInt(to) * 1000n)} AS BIGINT))`;
}

/** Rows under their parents (each must exist) in a time range, oldest first, in the endpoint's envelope. */
export async function answerSeries(request: AnswerRequest, answer: Of<'series'>) {
  const resource = resourceOf(request.dataset, answer.resource);
  const table = request.dataset.tables[resource.table]!;
  const equal: Record<string, unknown> = {};
  for (const parent of answer.parents) {
    const value = request.params[parent.param];
    const found = await findRow(request, parent.resource, parent.match, value);
    if (!found) throw new NotFound(parent.param, `no ${parent.resource} has ${parent.match.join(' or ')} ${JSON.stringify(value)}`);
    equal[parent.column] = found.row[parent.key];
  }
  const range = dayRangeOf(request);
  const values: DuckDBValue[] = [];
  const bind = (value: DuckDBValue) => `$${values.push(value)}`;
  const conditions = Object.entries(equal).map(([column, value]) => `${quoteIdentifier(column)} = ${castParam(table.columns[column]!, bind(value as string))}`);
  conditions.push(timeCondition(answer.time, range, bind));
  const narrowed = table.timeColumn === answer.time ? { equal, from: range[0], to: range[1] } : { equal };
  const files = request.served.files(request.dataset, resource.table, narrowed);
  const from = request.served.source(request.dataset, resource, files, bind);
  // The parents' columns hold one value in every row: reading it thousands of times is waste.
  const varying = columnsFor(request, resource).filter(([name]) => !(name in equal));
  const rows = await request.connection.rows(
    `SELECT ${selectList(varying)} FROM ${from} WHERE ${conditions.join(' AND ')} ORDER BY ${quoteIdentifier(answer.time)}`,
    values,
  );
  for (const row of rows) Object.assign(row, equal);
  return answer.envelope(renderRows(request, resource, rows), request.params, request.context);
}

/**
 * Numbered pages of the rows whose time falls in from..to. The files hold rows in time order and
 * DuckDB keeps that order without ORDER BY, so a page is a scan that stops after it.
 */
export async function answerNumberedPage(request: AnswerRequest, answer: Of<'numbered-page'>) {
  const resource = resourceOf(request.dataset, answer.resource);
  const table = request.dataset.tables[resource.table]!;
  const range = dayRangeOf(request);
  const values: DuckDBValue[] = [];
  const bind = (value: DuckDBValue) => `$${values.push(value)}`;
  const page = request.params.page as number;
  const pageSize = request.params.pageSize as number;
  const files = table.timeColumn === answer.time
    ? request.served.files(request.dataset, resource.table, { from: range[0], to: range[1] })
    : request.served.files(request.dataset, resource.table);
  const from = request.served.source(request.dataset, resource, files, bind);
  const rows = await request.connection.rows(
    `SELECT ${selectList(columnsFor(request, resource))} FROM ${from} WHERE ${timeCondition(answer.time, range, bind)} LIMIT ${bind(pageSize + 1)} OFFSET ${bind((page - 1) * pageSize)}`,
    values,
  );
  return numberedPage(renderRows(request, resource, rows.slice(0, pageSize)), page, pageSize, rows.length > pageSize);
}
