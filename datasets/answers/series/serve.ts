import type { DuckDBValue } from '@duckdb/node-api';
import { quoteIdentifier } from '../../../core/db/duckdb.ts';
import { notFound } from '../../../core/problem.ts';
import { castParam, columnsFor, enveloped, findRow, renderRows, resourceOf, selectList, type AnswerRequest } from '../serving.ts';
import { dayRangeOf, rangeCondition, rangeNarrowing } from '../time-range.ts';
import type { SeriesAnswer } from './declaration.ts';

/** Rows under their parents (each must exist) in a time range, oldest first, in the endpoint's envelope. */
export async function answerSeries(request: AnswerRequest, answer: SeriesAnswer) {
  const resource = resourceOf(request.dataset, answer.resource);
  const table = request.dataset.tables[resource.table]!;
  const equal: Record<string, unknown> = {};
  for (const parent of answer.parents) {
    const value = request.params[parent.param];
    const found = await findRow(request, parent.resource, parent.match, value);
    if (!found) throw notFound(`no ${parent.resource} has ${parent.match.join(' or ')} ${JSON.stringify(value)}`, parent.param);
    equal[parent.column] = found.row[parent.key];
  }
  const range = dayRangeOf(request);
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
    `SELECT ${selectList(varying)} FROM ${from} WHERE ${conditions.join(' AND ')} ORDER BY ${quoteIdentifier(answer.time)}`,
    values,
  );
  for (const row of rows) Object.assign(row, equal);
  return enveloped(answer.envelope(renderRows(request, resource, rows), request.params, request.context), request.envelope, { count: rows.length });
}
