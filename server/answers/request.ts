import type { Dataset, Resource } from '../../datasets/vocabulary/dataset.ts';
import type { Endpoint } from '../../datasets/vocabulary/endpoint.ts';
import type { RenderContext } from '../../datasets/vocabulary/render.ts';
import type { Column } from '../../core/table.ts';
import { readExpression, rowDecoder } from '../../core/db/columns.ts';
import type { StatementRunner } from '../connection-pool.ts';
import type { ServedSnapshot } from '../served-snapshot.ts';

/** Everything an answer needs for one request. */
export interface AnswerRequest {
  readonly served: ServedSnapshot;
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
}

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
