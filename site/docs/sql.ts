import { kindOf } from '../../datasets/answers/index.ts';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import { viewName } from '../../core/table.ts';
import type { Endpoint } from '../../datasets/vocabulary/endpoint.ts';
import type { Text } from '../../core/text.ts';

/**
 * The DuckDB side of an endpoint: the views (`<data set sqlName>_<table>`, as `odsnap sql` and
 * `/api/sql` name them) holding the rows it answers from, and a query close to what it answers.
 */

export interface ViewDoc {
  readonly name: string;
  readonly doc: Text;
  readonly columns: readonly { readonly name: string; readonly sqlType: string; readonly doc: Text }[];
}

export interface SqlExample {
  readonly views: readonly ViewDoc[];
  readonly query: string;
}

/** A SQL string literal of `value`. */
export const quote = (value: string) => `'${value.replaceAll("'", "''")}'`;

export function sqlOf(dataset: Dataset, endpoint: Endpoint, pathValues: Readonly<Record<string, string>> = {}): SqlExample {
  const kind = kindOf(endpoint.answer);
  const tableOf = (resource: string) => dataset.resources[resource]!.table;
  const tables = [...new Set(kind.reads(endpoint.answer).map(tableOf))];
  const table = dataset.tables[tables[0]!]!;
  const query = kind.sql(endpoint.answer, {
    main: viewName(dataset, tables[0]!),
    view: (resource) => viewName(dataset, tableOf(resource)),
    value: (param) => quote(pathValues[param] ?? `{${param}}`),
    order: table.sortBy.join(', '),
  });
  const views = tables.map((name) => {
    const table = dataset.tables[name]!;
    return {
      name: viewName(dataset, name),
      doc: table.doc,
      columns: Object.entries(table.columns).map(([column, spec]) => ({ name: column, sqlType: spec.sqlType, doc: spec.doc })),
    };
  });
  return { views, query };
}
