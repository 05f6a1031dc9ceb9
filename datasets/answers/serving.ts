import type { DuckDBValue } from '@duckdb/node-api';
import { readExpression, rowDecoder } from '../../core/db/columns.ts';
import { quoteIdentifier } from '../../core/db/duckdb.ts';
import { rowOrder } from '../../core/row-order.ts';
import type { Narrowing } from '../../core/snapshot/read.ts';
import type { Manifest } from '../../core/snapshot/manifest.ts';
import type { Column } from '../../core/table.ts';
import type { Dataset, Resource } from '../vocabulary/dataset.ts';
import type { Endpoint } from '../vocabulary/endpoint.ts';
import type { RenderContext } from '../vocabulary/render.ts';
import { stringify, WrittenJson } from '../vocabulary/written.ts';
import type { Envelope } from './envelope.ts';

/**
 * What the server gives an answer kind for one request (see kind.ts), and what kinds share to
 * answer it: the snapshot's tables as the server holds them, a connection to run SQL on, and the
 * rows read back rendered as their resource.
 */

/**
 * How a statement's rows cross into JS. 'columns': the binding decodes every value on its own,
 * fast for numbers, one native call per string. 'json': one JSON text per row (see asJsonRows),
 * for wide rows of strings, where parsing one text costs less than a native call per string.
 */
export type RowReading = 'columns' | 'json';

/** What answers run their SQL through: a pooled connection, or anything that records or times it. */
export interface StatementRunner {
  rows(sql: string, values?: readonly DuckDBValue[], reading?: RowReading): Promise<Record<string, unknown>[]>;
}

/** A resource's rows kept rendered, links under a placeholder (server/record-store.ts, server/storage-plan.ts). */
export interface RenderedResource {
  readonly records: RenderedRecords;
  /** Rendered texts' UTF-8 bytes with the links' base in, into a new buffer, with `before` and `after` around them. */
  withBase(bytes: Buffer, base: string, before?: Uint8Array, after?: Uint8Array): Buffer;
}

/** A resource's rendered rows in a file, found by key or by row number without a statement. */
export interface RenderedRecords {
  /** The rendered JSON of the first item (in row order) whose `column` is `key`, as UTF-8. */
  find(column: string, key: string): Buffer | undefined;
  /** The rendered JSON of these rows (row numbers of the stored table), in that order, joined by the byte `separator`, for `use` to read while it runs. */
  withJoined<T>(rows: readonly number[], separator: number, use: (bytes: Buffer) => T): T;
}

/** A resource's rows kept rendered as series (server/series-files.ts): found by the values naming a series and a span of time. */
export interface RenderedSeries {
  /**
   * The rows of the series named by `values` whose time is in the span (epoch microseconds, `to`
   * included when `toIncluded`), oldest first, as rendered in `context` (its zone and links): the
   * items of a JSON array, joined by commas, and how many; with `page`, the first `skip` left out
   * and at most `take`, `total` counting them all.
   */
  rows(
    values: readonly unknown[],
    span: { readonly from: number; readonly to: number; readonly toIncluded: boolean },
    context: RenderContext,
    page?: { readonly skip: number; readonly take: number },
  ): { readonly text: string; readonly count: number; readonly total: number };
}

/** A snapshot's tables as the server holds them for answering (server/snapshot-tables.ts). */
export interface ServedTables {
  readonly snapshot: { readonly manifest: Manifest };
  /** A table's Parquet files, narrowed by partition values and by the min/max of its time column. */
  files(dataset: Dataset, tableName: string, narrow?: Narrowing): string[];
  /** SQL naming where a resource's rows are: the serving database's table, or the given Parquet files (bound when `bind` is given). */
  source(dataset: Dataset, resource: Resource, files?: readonly string[], bind?: (value: DuckDBValue) => string): string;
  /** The resource's rows kept rendered, if they are. */
  rendered(dataset: Dataset, resource: Resource): RenderedResource | undefined;
  /** The resource's rows kept rendered as series named by `columns`, if they are. */
  series(dataset: Dataset, resource: Resource, columns: readonly string[]): RenderedSeries | undefined;
  /** SQL naming the columns of a table its kinds keep in memory (Storage.inMemory); its rows match the stored table's by row number. */
  inMemory(dataset: Dataset, tableName: string): string;
  /** What the endpoint's kind keeps in the server's process (Storage.inProcess), once read; its own to know the type of. */
  inProcess(endpoint: Endpoint): unknown;
  /** Whether a table is small enough for its lookups to be remembered. */
  isSmall(dataset: Dataset, tableName: string): boolean;
  remember<T>(key: string, compute: () => Promise<T>): Promise<T>;
}

/** Everything an answer needs for one request. */
export interface AnswerRequest {
  readonly served: ServedTables;
  readonly dataset: Dataset;
  readonly endpoint: Endpoint;
  /** The request's path, e.g. `/api/public/rcn/transactions`. */
  readonly path: string;
  /** Parameters parsed by the endpoint's declaration. */
  readonly params: Readonly<Record<string, unknown>>;
  /** Query parameters as the client wrote them, for links to other pages. */
  readonly query: Readonly<Record<string, string>>;
  readonly context: RenderContext;
  /** The links' base, e.g. `http://localhost:4321`. */
  readonly base: string;
  readonly connection: StatementRunner;
  /** The endpoint's envelope as its upstream writes it, links resolved (see envelope.ts). */
  readonly envelope?: Envelope;
}

export { enveloped } from './envelope.ts';

/** A response body already serialized (from rows stored rendered): its UTF-8 JSON, sent as it is. */
export class SerializedJson {
  constructor(readonly bytes: Buffer) {}
}

/** The body as UTF-8 JSON. */
export const serialize = (body: unknown): Buffer => (body instanceof SerializedJson ? body.bytes : Buffer.from(stringify(body)));

/**
 * Rows kept rendered (their texts joined by commas) as the items an envelope places: one text for
 * the whole array, which the envelope only places and stringify writes as it is.
 */
export const asItems = (text: string, count: number): unknown[] => (count ? (new WrittenJson(`[${text}]`) as unknown as unknown[]) : []);

export function resourceOf(dataset: Dataset, name: string): Resource {
  const resource = dataset.resources[name];
  if (!resource) throw new Error(`${dataset.name} has no resource ${name}`);
  return resource;
}

/** The columns a resource's rendering reads: the storage is columnar, so the rest is never touched. */
export function columnsFor(request: AnswerRequest, resource: Resource): [string, Column][] {
  return Object.entries(request.dataset.tables[resource.table]!.columns).filter(([name]) => !resource.omits.includes(name));
}

export const selectList = (columns: readonly [string, Column][]) => columns.map(([name, column]) => readExpression(name, column)).join(', ');

/** Turns DuckDB rows into table rows and renders them as the resource. */
export function renderRows(request: AnswerRequest, resource: Resource, rows: Record<string, unknown>[]): unknown[] {
  const decode = rowDecoder(Object.fromEntries(columnsFor(request, resource)));
  return rows.map((row) => resource.render(decode(row), request.context));
}

/**
 * A resource's rows in its table's row order, narrowed by equal column values; with `latest`, only
 * those of the newest capture (greatest time column), read from the files that can hold it.
 * What custom answers read (custom/query.ts), and where the server's feeds find the newest capture.
 */
export async function readRows(
  served: ServedTables,
  connection: StatementRunner,
  dataset: Dataset,
  resourceName: string,
  options: { readonly where?: Readonly<Record<string, string | number>>; readonly latest?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const where = options.where ?? {};
  const resource = resourceOf(dataset, resourceName);
  const table = dataset.tables[resource.table]!;
  const values: DuckDBValue[] = [];
  const bind = (value: DuckDBValue) => `$${values.push(value)}`;
  const conditions = Object.entries(where).map(([column, value]) => `${quoteIdentifier(column)} = ${castParam(table.columns[column]!, bind(value))}`);
  let files = served.files(dataset, resource.table, { equal: where });
  if (options.latest) {
    if (!table.timeColumn) throw new Error(`${dataset.name}/${table.name} has no time column to find its latest rows by`);
    const newest = served.snapshot.manifest.datasets[dataset.name]!.tables[table.name]!.files.reduce<string | null>(
      (max, f) => (f.max && (!max || f.max > max) ? f.max : max),
      null,
    );
    if (newest) files = served.files(dataset, resource.table, { equal: where, from: Date.parse(newest) });
    const source = served.source(dataset, resource, files, bind);
    conditions.push(`${quoteIdentifier(table.timeColumn)} = (SELECT max(${quoteIdentifier(table.timeColumn)}) FROM ${source})`);
  }
  const columns = Object.entries(table.columns).filter(([name]) => !resource.omits.includes(name));
  const rows = await connection.rows(
    `SELECT ${selectList(columns)} FROM ${served.source(dataset, resource, files, bind)}${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''} ORDER BY ${rowOrder(table).map(quoteIdentifier).join(', ')}`,
    values,
  );
  return rows.map(rowDecoder(Object.fromEntries(columns)));
}

/** SQL comparing a column with a bound value of the column's own type. */
export function castParam(column: Column, placeholder: string): string {
  switch (column.kind) {
    case 'decimal':
      return `CAST(${placeholder} AS DECIMAL(19,4))`;
    case 'day':
    case 'integer':
    case 'double':
    case 'varchar':
    case 'boolean':
      return `CAST(${placeholder} AS ${column.sqlType})`;
    default:
      return placeholder;
  }
}

/**
 * The first row whose `match` columns, tried in order, hold the value; undefined when none does.
 * Remembered in small tables: a snapshot never changes, and a round trip to DuckDB costs more than
 * the row.
 */
export async function findRow(request: AnswerRequest, resourceName: string, match: readonly string[], value: unknown) {
  const resource = resourceOf(request.dataset, resourceName);
  const table = request.dataset.tables[resource.table]!;
  const columns = columnsFor(request, resource);
  const lookup = async () => {
    for (const column of match) {
      const values: DuckDBValue[] = [];
      const bind = (v: DuckDBValue) => `$${values.push(v)}`;
      const files = request.served.files(request.dataset, resource.table, { equal: { [column]: value } });
      const [found] = await request.connection.rows(
        `SELECT ${selectList(columns)} FROM ${request.served.source(request.dataset, resource, files, bind)} WHERE ${quoteIdentifier(column)} = ${castParam(table.columns[column]!, bind(value as string | number))} LIMIT 1`,
        values,
        'json', // a wide row of strings
      );
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const row = await (request.served.isSmall(request.dataset, resource.table)
    ? request.served.remember(JSON.stringify([request.dataset.name, resource.name, 'row', match, value]), lookup)
    : lookup());
  return row && { resource, row };
}
