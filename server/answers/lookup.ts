import type { DuckDBValue } from '@duckdb/node-api';
import type { Answer } from '../../datasets/vocabulary/answer.ts';
import type { Resource } from '../../datasets/vocabulary/dataset.ts';
import { NotFound } from '../../datasets/vocabulary/answer.ts';
import { rowOrder } from '../../core/row-order.ts';
import { quoteIdentifier } from '../../core/db/duckdb.ts';
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

/**
 * What `find` gives for the first of the `match` columns, tried in order, that holds the value;
 * undefined when none does. Remembered in small tables: a snapshot never changes, and a round trip
 * to DuckDB costs more than the row.
 */
async function firstMatch<T>(request: AnswerRequest, resource: Resource, match: readonly string[], value: unknown, find: (column: string) => Promise<T | undefined>, what: string): Promise<T | undefined> {
  const lookup = async () => {
    for (const column of match) {
      const found = await find(column);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return request.served.isSmall(request.dataset, resource.table)
    ? request.served.remember(JSON.stringify([request.dataset.name, resource.name, what, match, value]), lookup)
    : lookup();
}

/** The first row whose `match` columns, tried in order, hold the value; undefined when none does. */
export async function findRow(request: AnswerRequest, resourceName: string, match: readonly string[], value: unknown) {
  const resource = resourceOf(request.dataset, resourceName);
  const table = request.dataset.tables[resource.table]!;
  const columns = columnsFor(request, resource);
  const row = await firstMatch(request, resource, match, value, async (column) => {
    const values: DuckDBValue[] = [];
    const bind = (v: DuckDBValue) => `$${values.push(v)}`;
    const files = request.served.files(request.dataset, resource.table, { equal: { [column]: value } });
    const [found] = await request.connection.rows(
      `SELECT ${selectList(columns)} FROM ${request.served.source(request.dataset, resource, files, bind)} WHERE ${quoteIdentifier(column)} = ${castParam(table.columns[column]!, bind(value as string | number))} LIMIT 1`,
      values,
      'json', // a wide row of strings
    );
    return found;
  }, 'row');
  return row && { resource, row };
}

export async function answerItem(request: AnswerRequest, answer: Of<'item'>): Promise<unknown> {
  const value = request.params[answer.param];
  const notFound = () => new NotFound(answer.param, `no ${answer.resource} has ${answer.match.join(' or ')} ${JSON.stringify(value)}`);
  const resource = resourceOf(request.dataset, answer.resource);
  const rendering = request.served.rendering(request.dataset, resource);
  if (rendering) {
    // The stored rendering, links under a placeholder, looked up by the keys kept beside it (see renderedItems).
    const table = request.dataset.tables[resource.table]!;
    const text = await firstMatch(request, resource, answer.match, value, async (column) => {
      const [found] = await request.connection.rows(
        `SELECT ${rendering.column} AS "text" FROM ${rendering.source} WHERE ${quoteIdentifier(column)} = ${castParam(table.columns[column]!, '$1')} LIMIT 1`,
        [value as string | number],
      );
      return found?.text as string | undefined;
    }, 'rendered');
    if (text === undefined) throw notFound();
    return new SerializedJson(Buffer.from(rendering.withBaseIn(text, request.base)));
  }
  const found = await findRow(request, answer.resource, answer.match, value);
  if (!found) throw notFound();
  // A copy: a remembered row serves many requests, and rows are decoded in place.
  return renderRows(request, found.resource, [{ ...found.row }])[0];
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
