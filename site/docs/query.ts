import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { Text } from '../../core/text.ts';
import type { EndpointDoc, Limits, ParamDoc } from './endpoint-docs.ts';
import { viewName } from '../../core/table.ts';
import { quote, sqlOf, type ViewDoc } from './sql.ts';

/**
 * What the query page shows, read from the declarations: the SQL views of every table (the ones
 * `odsnap sql` and `/api/sql` have, created in the browser over the published Parquet files) and
 * a form per endpoint, one field per parameter.
 */

export interface QueryTable extends ViewDoc {
  /** The data set and table, as the downloads catalogue names them. */
  readonly dataset: string;
  readonly table: string;
}

export function queryTables(datasets: readonly Dataset[]): QueryTable[] {
  return datasets.flatMap((dataset) =>
    Object.values(dataset.tables).map((table) => ({
      dataset: dataset.name,
      table: table.name,
      name: viewName(dataset, table.name),
      doc: table.doc,
      columns: Object.entries(table.columns).map(([name, column]) => ({ name, sqlType: column.sqlType, doc: column.doc })),
    })),
  );
}

/** The docs' SQL example of the registry's first endpoint, and the table it reads (its first view). */
function firstEndpointSql(datasets: readonly Dataset[]): { table: string; query: string } | undefined {
  const dataset = datasets.find((candidate) => candidate.endpoints.length);
  if (!dataset) return undefined;
  const { views, query } = sqlOf(dataset, dataset.endpoints[0]!);
  return { table: views[0]!.name, query };
}

/** The query the editor starts with: the docs' SQL example of the registry's first endpoint. */
export const exampleQuery = (datasets: readonly Dataset[]): string => firstEndpointSql(datasets)?.query ?? 'SELECT 42 AS answer;';

/** An example of the query page: what it shows (by kind, worded by the page) and its SQL. */
export interface SqlExampleQuery {
  readonly kind: 'endpoint' | 'count' | 'perMonth' | 'perYear' | 'perMonthText' | 'oneMonth';
  readonly table: string;
  readonly query: string;
}

/** The part of the downloads catalogue the examples read: rows per table, and each file's partition values and time range. */
export interface ExampleCatalogueTable {
  readonly sqlName: string;
  readonly rows: number;
  readonly files: readonly {
    readonly rows: number;
    readonly partition: Readonly<Record<string, string>>;
    readonly min: string | null;
    readonly max: string | null;
  }[];
}

/**
 * The examples the query page offers, made from the declarations (and, when the site is built
 * with a tree, its catalogue): the first endpoint's query, then over the largest tables with a
 * time column of instants, one per time function DuckDB-WASM has without ICU (date_trunc, year,
 * strftime, ::DATE), and a month of one partition value (one counter, one station), which reads
 * one file's row groups.
 */
export function sqlExamples(datasets: readonly Dataset[], catalogue: readonly ExampleCatalogueTable[] = []): SqlExampleQuery[] {
  const rowsOf = (name: string) => catalogue.find((table) => table.sqlName === name)?.rows ?? 0;
  const timed = datasets
    .flatMap((dataset) =>
      Object.values(dataset.tables)
        .filter((table) => table.timeColumn && /^TIMESTAMP/.test(table.columns[table.timeColumn]!.sqlType))
        .map((table) => ({ dataset, table, name: viewName(dataset, table.name), time: table.timeColumn! })),
    )
    .sort((a, b) => rowsOf(b.name) - rowsOf(a.name));
  // The endpoint's example is named by the table its query reads, which need not be its data set's first.
  const endpoint = firstEndpointSql(datasets);
  const examples: SqlExampleQuery[] = endpoint ? [{ kind: 'endpoint', ...endpoint }] : [];
  const [first, second, third] = timed;
  if (first) {
    examples.push({ kind: 'count', table: first.name, query: `SELECT count(*) AS rows FROM ${first.name};` });
    examples.push({
      kind: 'perMonth',
      table: first.name,
      query: `SELECT date_trunc('month', ${first.time}) AS month, count(*) AS rows FROM ${first.name} GROUP BY 1 ORDER BY 1;`,
    });
  }
  if (second)
    examples.push({
      kind: 'perYear',
      table: second.name,
      query: `SELECT year(${second.time}) AS year, count(*) AS rows FROM ${second.name} GROUP BY 1 ORDER BY 1;`,
    });
  if (third)
    examples.push({
      kind: 'perMonthText',
      table: third.name,
      query: `SELECT strftime(${third.time}, '%Y-%m') AS month, count(*) AS rows FROM ${third.name} GROUP BY 1 ORDER BY 1;`,
    });
  // A month of one partition value: the fullest file's value and the month of its last row.
  for (const { table, name, time } of timed) {
    const partition = table.partitionBy?.find((candidate) => !candidate.part);
    const files = catalogue.find((entry) => entry.sqlName === name)?.files ?? [];
    const fullest = [...files].sort((a, b) => b.rows - a.rows)[0];
    const value = partition && fullest?.partition[partition.name];
    if (!partition || !fullest?.max || value === undefined) continue;
    const [year, month] = fullest.max.slice(0, 7).split('-').map(Number) as [number, number];
    const monthStart = `${year}-${String(month).padStart(2, '0')}-01`;
    const next = month === 12 ? `${year + 1}-01-01` : `${year}-${String(month + 1).padStart(2, '0')}-01`;
    examples.push({
      kind: 'oneMonth',
      table: name,
      query: `SELECT ${time}::DATE AS day, count(*) AS rows FROM ${name}\nWHERE ${partition.column} = ${quote(value)} AND ${time} >= '${monthStart}' AND ${time} < '${next}'\nGROUP BY 1 ORDER BY 1;`,
    });
  }
  return examples;
}

/** How a parameter is typed in: the input's kind and the limits its schema sets. */
export interface FormField {
  readonly name: string;
  readonly in: 'path' | 'query';
  readonly required: boolean;
  readonly input: 'number' | 'date' | 'text' | 'choice';
  readonly min?: number;
  readonly max?: number;
  readonly maxLength?: number;
  /** A pattern the browser can check (HTML `pattern`, whole value). */
  readonly pattern?: string;
  /** Values to choose from, for `choice`. */
  readonly options?: readonly string[];
  /** What the server uses when the field is left empty. */
  readonly placeholder?: string;
  /** A value that works against the built tree's snapshot, when known (path and required parameters). */
  readonly value?: string;
  readonly description: Text;
  /** The type as the docs show it, e.g. `string (date)`, and the limits they word. */
  readonly type: string;
  readonly limits: Limits;
}

export interface FormEndpoint {
  /** The operation id: a stable id for the fieldset and its fields. */
  readonly id: string;
  readonly path: string;
  readonly summary: Text;
  readonly fields: readonly FormField[];
}

/** The parameters of an endpoint as form fields; `example` values fill what the request needs. */
export function formEndpoint(doc: EndpointDoc): FormEndpoint {
  const exampleQuery = new URLSearchParams(doc.example.requestIsLive ? (doc.example.request.split('?')[1] ?? '') : '');
  const valueOf = (param: ParamDoc) =>
    param.in === 'path' ? doc.example.pathValues?.[param.name] : param.required ? (exampleQuery.get(param.name) ?? undefined) : undefined;
  return {
    id: doc.operationId,
    path: doc.endpoint.fullPath,
    summary: doc.endpoint.summary,
    fields: doc.params.map((param) => fieldOf(param, valueOf(param))),
  };
}

function fieldOf(param: ParamDoc, value: string | undefined): FormField {
  const schema = param.schema;
  const limits = param.limits;
  const common = {
    name: param.name,
    in: param.in,
    required: param.required,
    description: { en: param.description, pl: param['x-description-pl'] },
    type: param.type,
    limits,
    ...(value !== undefined ? { value } : {}),
    ...(limits.default !== undefined ? { placeholder: limits.default } : limits.examples?.length ? { placeholder: limits.examples[0] } : {}),
  };
  if (limits.only !== undefined) return { ...common, input: 'choice', options: [limits.only] };
  if (Array.isArray(schema.enum)) return { ...common, input: 'choice', options: schema.enum.map(String) };
  if (schema.type === 'integer' || schema.type === 'number') return { ...common, input: 'number', min: limits.minimum, max: limits.maximum };
  if (limits.format === 'date') return { ...common, input: 'date' };
  // JSON Schema patterns are ECMAScript ones: the browser checks them as typed (`v` flag, whole value).
  const pattern =
    typeof schema.pattern === 'string' && /^\^.*\$$/.test(schema.pattern) && !/\\u0000/.test(schema.pattern) ? schema.pattern.slice(1, -1) : undefined;
  return { ...common, input: 'text', maxLength: limits.maxLength, ...(pattern ? { pattern } : {}) };
}
