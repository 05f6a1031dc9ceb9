import type { DuckDBValue } from '@duckdb/node-api';
import type { Answer } from '../../datasets/core/answer.ts';
import { NotFound } from '../../datasets/core/answer.ts';
import { rowOrder } from '../../datasets/core/row-order.ts';
import { quoteIdentifier } from '../../scripts/db/duckdb.ts';
import type { Rendering } from '../served-snapshot.ts';
import { castParam, columnsFor, renderRows, resourceOf, selectList, type AnswerRequest } from './request.ts';
import { SerializedJson } from './serialized-json.ts';

type Of<K extends Answer['kind']> = Extract<Answer, { kind: K }>;

/** Every row of a (small) table, in table order. */
export async function answerList(request: AnswerRequest, answer: Of<'list'>): Promise<unknown[]> {
  const resource = resourceOf(request.dataset, answer.resource);
  const table = request.dataset.tables[resource.table]!;
  const rows = await request.connection.rows(
    `SELECT ${selectList(columnsFor(request, resource))} FROM ${request.served.source(request.dataset, resource)} ORDER BY ${rowOrder(table).map(quoteIdentifier).join(', ')}`,
  );
  return renderRows(request, resource, rows);
}

/** The first row whose `match` columns, tried in order, hold the value; undefined when none does. */
export function findRow(request: AnswerRequest, resourceName: string, match: readonly string[], value: unknown) {
  const resource = resourceOf(request.dataset, resourceName);
  const lookup = () => lookUp(request, resourceName, match, value);
  return request.served.isSmall(request.dataset, resource.table)
    ? request.served.remember(JSON.stringify([request.dataset.name, resourceName, match, value]), lookup)
    : lookup();
}

async function lookUp(request: AnswerRequest, resourceName: string, match: readonly string[], value: unknown) {
  const resource = resourceOf(request.dataset, resourceName);
  const table = request.dataset.tables[resource.table]!;
  const columns = columnsFor(request, resource);
  for (const column of match) {
    const values: DuckDBValue[] = [];
    const bind = (v: DuckDBValue) => `$${values.push(v)}`;
    const files = request.served.files(request.dataset, resource.table, { equal: { [column]: value } });
    const rows = await request.connection.rows(
      `SELECT ${selectList(columns)} FROM ${request.served.source(request.dataset, resource, files, bind)} WHERE ${quoteIdentifier(column)} = ${castParam(table.columns[column]!, bind(value as string | number))} LIMIT 1`,
      values,
      'json', // a wide row of strings
    );
    if (rows[0]) return { resource, row: rows[0] };
  }
  return undefined;
}

export async function answerItem(request: AnswerRequest, answer: Of<'item'>): Promise<unknown> {
  const value = request.params[answer.param];
  const notFound = () => new NotFound(answer.param, `no ${answer.resource} has ${answer.match.join(' or ')} ${JSON.stringify(value)}`);
  const resource = resourceOf(request.dataset, answer.resource);
  const rendering = request.served.rendering(request.dataset, resource);
  if (rendering) {
    const lookup = () => findRendering(request, rendering, answer, value);
    const text = await (request.served.isSmall(request.dataset, resource.table)
      ? request.served.remember(JSON.stringify([request.dataset.name, answer.resource, answer.match, value, 'rendered']), lookup)
      : lookup());
    if (text === undefined) throw notFound();
    return new SerializedJson(Buffer.from(rendering.withBaseIn(text, request.base)));
  }
  const found = await findRow(request, answer.resource, answer.match, value);
  if (!found) throw notFound();
  // A copy: a remembered row serves many requests, and rows are decoded in place.
  return renderRows(request, found.resource, [{ ...found.row }])[0];
}

/** An item's stored rendering, with the placeholder for the links' base, looked up by its keys in turn (see renderedItems). */
async function findRendering(request: AnswerRequest, rendering: Rendering, answer: Of<'item'>, value: unknown): Promise<string | undefined> {
  const table = request.dataset.tables[resourceOf(request.dataset, answer.resource).table]!;
  for (const column of answer.match) {
    const [found] = await request.connection.rows(
      `SELECT ${rendering.column} AS "text" FROM ${rendering.source} WHERE ${quoteIdentifier(column)} = ${castParam(table.columns[column]!, '$1')} LIMIT 1`,
      [value as string | number],
    );
    if (found) return found.text as string;
  }
  return undefined;
}

export async function answerDocument(request: AnswerRequest, answer: Of<'document'>): Promise<unknown> {
  const resource = resourceOf(request.dataset, answer.resource);
  const where = Object.keys(answer.where).map((column, i) => `${quoteIdentifier(column)} = $${i + 1}`).join(' AND ');
  const rows = await request.connection.rows(
    `SELECT ${selectList(columnsFor(request, resource))} FROM ${request.served.source(request.dataset, resource)} WHERE ${where}`,
    Object.values(answer.where),
  );
  if (!rows[0]) throw new NotFound('path', `this snapshot holds no ${request.path}`);
  return renderRows(request, resource, rows)[0];
}
