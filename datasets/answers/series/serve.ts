import type { DuckDBValue } from '@duckdb/node-api';
import { quoteIdentifier } from '../../../core/db/duckdb.ts';
import { notFound } from '../../../core/problem.ts';
import { rowOrder } from '../../../core/row-order.ts';
import type { Table } from '../../../core/table.ts';
import { asItems, castParam, columnsFor, enveloped, findRow, renderRows, resourceOf, selectList, type AnswerRequest, type RenderedSeries } from '../serving.ts';
import { dayRangeOf, rangeCondition, rangeNarrowing, startSpan, type DayRange } from '../time-range.ts';
import type { SeriesAnswer } from './declaration.ts';

/** Rows under their parents (each must exist) in a time range, oldest first, in the endpoint's envelope. */
export async function answerSeries(request: AnswerRequest, answer: SeriesAnswer) {
  const resource = resourceOf(request.dataset, answer.resource);
  const equal: Record<string, unknown> = {};
  for (const parent of answer.parents) {
    const value = request.params[parent.param];
    const found = await findRow(request, parent.resource, parent.match, value);
    if (!found) throw notFound(`no ${parent.resource} has ${parent.match.join(' or ')} ${JSON.stringify(value)}`, parent.param);
    equal[parent.column] = found.row[parent.key];
  }
  const range = dayRangeOf(request);
  const kept = request.served.series(
    request.dataset,
    resource,
    answer.parents.map((parent) => parent.column),
  );
  const { rows, count } = kept ? keptRows(request, answer, kept, equal, range) : await readRows(request, answer, equal, range);
  return enveloped(answer.envelope(rows, request.params, request.context), request.envelope, { count });
}

/** The rows from the series kept rendered: one run of texts, spliced into the envelope as written. */
function keptRows(request: AnswerRequest, answer: SeriesAnswer, kept: RenderedSeries, equal: Record<string, unknown>, range: DayRange) {
  const { text, count } = kept.rows(
    answer.parents.map((parent) => equal[parent.column]),
    startSpan(range),
    request.context,
  );
  return { rows: asItems(text, count), count };
}

/** Rows of one time in the order of the table's rows, as in the series files. */
const order = (answer: SeriesAnswer, table: Table) => [...new Set([answer.time, ...rowOrder(table)])].map(quoteIdentifier).join(', ');

/** The rows read with a statement from where they are stored, and rendered. */
async function readRows(request: AnswerRequest, answer: SeriesAnswer, equal: Record<string, unknown>, range: DayRange) {
  const resource = resourceOf(request.dataset, answer.resource);
  const table = request.dataset.tables[resource.table]!;
  const values: DuckDBValue[] = [];
  const bind = (value: DuckDBValue) => `$${values.push(value)}`;
  const conditions = Object.entries(equal).map(([column, value]) => `${quoteIdentifier(column)} = ${castParam(table.columns[column]!, bind(value as string))}`);
  conditions.push(rangeCondition(answer, range, bind));
  const narrowed = table.timeColumn === answer.time ? { equal, ...rangeNarrowing(range) } : { equal };
  const files = request.served.files(request.dataset, resource.table, narrowed);
  const from = request.served.source(request.dataset, resource, files, bind);
  // The parents' columns hold one value in every row: reading it thousands of times is waste.
  const varying = columnsFor(request, resource).filter(([name]) => !(name in equal));
  const rows = await request.connection.rows(
    `SELECT ${selectList(varying)} FROM ${from} WHERE ${conditions.join(' AND ')} ORDER BY ${order(answer, table)}`,
    values,
  );
  for (const row of rows) Object.assign(row, equal);
  return { rows: renderRows(request, resource, rows), count: rows.length };
}
