import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { Endpoint } from '../../datasets/vocabulary/endpoint.ts';
import { jsonSchemaOf, type JsonSchema, type SchemaComponents } from '../openapi/json-schema.ts';
import { EXAMPLE_ORIGIN, operationId, parametersOf, type ParameterObject } from '../openapi/document.ts';
import { invalidRequestExample, problemsOf, type ProblemStatus } from '../openapi/problems.ts';
import { exampleOf, firstFilesOf, type EndpointExample } from './examples.ts';
import { responseShape, typeLabel, type ResponseShape } from './schema-rows.ts';
import { sqlOf, type SqlExample } from './sql.ts';

/** Everything an endpoint's docs page shows, read from its declaration (through the same code as the OpenAPI document). */
export interface EndpointDoc {
  readonly dataset: Dataset;
  readonly endpoint: Endpoint;
  readonly operationId: string;
  readonly params: readonly ParamDoc[];
  readonly response: ResponseShape;
  readonly problems: readonly ProblemStatus[];
  readonly invalidExample: { readonly target: string; readonly body: unknown };
  readonly example: EndpointExample;
  readonly sql: SqlExample;
  readonly snippets: { readonly curlFile?: string; readonly curlRequest: string; readonly curlSql: string; readonly cliSql: string };
}

export interface ParamDoc extends ParameterObject {
  readonly type: string;
  readonly limits: Limits;
}

/** What a parameter's schema allows, for the limits column; worded by the page in its language. */
export interface Limits {
  readonly minimum?: number;
  readonly maximum?: number;
  readonly maxLength?: number;
  readonly format?: string;
  readonly default?: string;
  readonly examples?: readonly string[];
  readonly only?: string;
}

export interface DocsOptions {
  /** A static tree written by `odsnap build`: examples use its real files. */
  readonly treeDir?: string;
  /** Where curl snippets send requests; default the address `npm start` serves on. */
  readonly origin?: string;
  /** The site's base path, e.g. `/` or `/odsnap/`. */
  readonly base?: string;
}

function limitsOf(schema: JsonSchema): Limits {
  const number = (key: string) => (typeof schema[key] === 'number' ? (schema[key] as number) : undefined);
  return {
    minimum: number('minimum'),
    maximum: number('maximum'),
    maxLength: number('maxLength'),
    format: typeof schema.format === 'string' ? schema.format : undefined,
    default: 'default' in schema ? String(schema.default) : undefined,
    examples: Array.isArray(schema.examples) ? schema.examples.map(String) : undefined,
    only: 'const' in schema ? String(schema.const) : undefined,
  };
}

/** The docs of every endpoint of every data set, by full path; one schema component set for all. */
export function endpointDocs(
  datasets: readonly Dataset[],
  options: DocsOptions = {},
): { docs: ReadonlyMap<string, EndpointDoc>; components: SchemaComponents } {
  const components: SchemaComponents = {};
  const origin = (options.origin ?? EXAMPLE_ORIGIN).replace(/\/+$/, '');
  const files = firstFilesOf(options.treeDir);
  const absolute = (href: string) => (/^https?:/.test(href) ? href : `${origin}${href}`);
  const docs = new Map<string, EndpointDoc>();
  for (const dataset of datasets) {
    for (const endpoint of dataset.endpoints) {
      const example = exampleOf(endpoint, files.get(endpoint.fullPath), options.base);
      const sql = sqlOf(dataset, endpoint, example.pathValues);
      const oneLine = sql.query.replace(/\s*\n\s*/g, ' ');
      docs.set(endpoint.fullPath, {
        dataset,
        endpoint,
        operationId: operationId(dataset, endpoint),
        params: parametersOf(endpoint, components).map((param) => ({ ...param, type: typeLabel(param.schema), limits: limitsOf(param.schema) })),
        response: responseShape(jsonSchemaOf(endpoint.response, components), components),
        problems: problemsOf(endpoint),
        invalidExample: invalidRequestExample(endpoint, { base: origin, pathValues: example.pathValues }),
        example,
        sql,
        snippets: {
          curlFile: example.file && `curl -s --compressed '${absolute(example.file)}'`,
          // -g: braces of placeholders are not curl's globs.
          curlRequest: `curl -s${example.requestIsLive ? '' : 'g'} '${absolute(example.request)}'`,
          curlSql: `curl -sG '${origin}${(options.base ?? '/').replace(/\/+$/, '')}/api/sql' --data-urlencode ${shellQuote(`q=${oneLine}`)}`,
          cliSql: `npx odsnap sql ${shellQuote(oneLine)}`,
        },
      });
    }
  }
  return { docs, components };
}

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
