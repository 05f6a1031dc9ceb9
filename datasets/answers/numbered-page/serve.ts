import type { DuckDBValue } from '@duckdb/node-api';
import { asItems, columnsFor, enveloped, renderRows, resourceOf, selectList, type AnswerRequest } from '../serving.ts';
import { dayRangeOf, rangeCondition, rangeNarrowing, startSpan } from '../time-range.ts';
import type { NumberedPageAnswer } from './declaration.ts';
import { numberedPage } from './numbered-page.ts';
import { needsTotal, type PageFacts } from '../envelope.ts';

/**
 * Numbered pages of the rows whose time falls in from..to: from the rows kept rendered in time
 * order (server/series-files.ts) where the range chooses rows by their start; else read from the
 * files, which hold rows in time order, kept by DuckDB without ORDER BY, so a page is a scan that
 * stops after it.
 */
export async function answerNumberedPage(request: AnswerRequest, answer: NumberedPageAnswer) {
  const resource = resourceOf(request.dataset, answer.resource);
  const table = request.dataset.tables[resource.table]!;
  const range = dayRangeOf(request);
  const values: DuckDBValue[] = [];
  const bind = (value: DuckDBValue) => `$${values.push(value)}`;
  const page = request.params.page as number;
  const pageSize = request.params.pageSize as number;
  // Kept rendered in time order, rows chosen by their start are a run found by the times around the range.
  const kept = (range.rule.by ?? 'start') === 'start' ? request.served.series(request.dataset, resource, []) : undefined;
  if (kept) {
    const skip = (page - 1) * pageSize;
    const { text, count, total } = kept.rows([], startSpan(range), request.context, { skip, take: pageSize });
    const facts: PageFacts = { count, page, pageSize, ...(needsTotal(request.envelope) ? { total } : {}) };
    return enveloped(numberedPage(asItems(text, count), page, pageSize, total > skip + pageSize), request.envelope, facts);
  }
  const files =
    table.timeColumn === answer.time
      ? request.served.files(request.dataset, resource.table, rangeNarrowing(range))
      : request.served.files(request.dataset, resource.table);
  const from = request.served.source(request.dataset, resource, files, bind);
  const where = rangeCondition(answer, range, bind);
  const rows = await request.connection.rows(
    `SELECT ${selectList(columnsFor(request, resource))} FROM ${from} WHERE ${where} LIMIT ${bind(pageSize + 1)} OFFSET ${bind((page - 1) * pageSize)}`,
    values,
  );
  const facts: PageFacts = { count: Math.min(rows.length, pageSize), page, pageSize };
  // The range's rows are counted only for an upstream whose envelope says how many there are.
  if (needsTotal(request.envelope)) {
    const [counted] = await request.connection.rows(`SELECT count(*) AS "total" FROM ${from} WHERE ${where}`, values.slice(0, -2));
    facts.total = Number(counted!.total);
  }
  return enveloped(numberedPage(renderRows(request, resource, rows.slice(0, pageSize)), page, pageSize, rows.length > pageSize), request.envelope, facts);
}
