import { type Dataset } from '../../datasets/vocabulary/dataset.ts';
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

const quote = (value: string) => `'${value.replaceAll("'", "''")}'`;

export function sqlOf(dataset: Dataset, endpoint: Endpoint, pathValues: Readonly<Record<string, string>> = {}): SqlExample {
  const answer = endpoint.answer;
  const tableOf = (resource: string) => dataset.resources[resource]!.table;
  const read = answer.kind === 'custom' ? answer.reads : answer.kind === 'series' ? [answer.resource, ...answer.parents.map((p) => p.resource)] : [answer.resource];
  const tables = [...new Set(read.map(tableOf))];
  const value = (param: string) => quote(pathValues[param] ?? `{${param}}`);
  const view = (resource: string) => viewName(dataset, tableOf(resource));
  const main = viewName(dataset, tables[0]!);
  const table = dataset.tables[tables[0]!]!;
  const order = table.sortBy.join(', ');

  let query: string;
  switch (answer.kind) {
    case 'item':
      query = `SELECT * FROM ${main} WHERE ${answer.match[0]} = ${value(answer.param)};`;
      break;
    case 'document':
      query = `SELECT * FROM ${main} WHERE ${Object.entries(answer.where).map(([column, v]) => `${column} = ${quote(v)}`).join(' AND ')};`;
      break;
    case 'series': {
      const narrowed = answer.parents.map((parent) =>
        parent.match[0] === parent.key
          ? `${parent.column} = ${value(parent.param)}`
          : `${parent.column} = (SELECT ${parent.key} FROM ${view(parent.resource)} WHERE ${parent.match[0]} = ${value(parent.param)})`,
      );
      query = `SELECT * FROM ${main}\nWHERE ${narrowed.join('\n  AND ')}\nORDER BY ${answer.time} DESC\nLIMIT 100;`;
      break;
    }
    default:
      query = `SELECT * FROM ${main}\nORDER BY ${order}\nLIMIT 10;`;
  }
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
