import type { z } from 'zod';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { Endpoint } from '../../datasets/vocabulary/endpoint.ts';
import { docOf } from '../../datasets/vocabulary/field.ts';
import { OPENAPI } from '../../core/published-tree.ts';
import { jsonSchemaOf, type JsonSchema, type SchemaComponents } from './json-schema.ts';
import { invalidRequestExample, problem, problemsOf, problemStatuses, type ProblemStatus } from './problems.ts';

/**
 * The OpenAPI 3.1 document of the v1 service, generated from the data-set declarations: every
 * endpoint with its parameters, response schema and problem responses. English texts are the
 * standard fields; Polish ones ride along as `x-…-pl` extensions.
 */

export interface OpenApiOptions {
  /** Where the service answers, e.g. https://data.example.org; default: relative to the document. */
  readonly serverUrl?: string;
}

export const OPENAPI_PATH = `/${OPENAPI}`;

/** Where examples send requests when the document names no server: the address `npm start` serves on. */
export const EXAMPLE_ORIGIN = 'http://localhost:4321';

/** A parameter as OpenAPI describes it, with what the docs pages show beside it. */
export interface ParameterObject {
  readonly name: string;
  readonly in: 'path' | 'query';
  readonly required: boolean;
  readonly description: string;
  readonly 'x-description-pl': string;
  readonly schema: JsonSchema;
}

/** Parameters of an endpoint, path ones first, in declaration order. */
export function parametersOf(endpoint: Endpoint, components: SchemaComponents): ParameterObject[] {
  const entries = Object.entries(endpoint.params) as [string, z.ZodType][];
  const isPath = (name: string) => endpoint.pathParams.includes(name);
  return [...entries.filter(([name]) => isPath(name)), ...entries.filter(([name]) => !isPath(name))].map(([name, schema]) => {
    const texts = docOf(schema);
    if (!texts) throw new Error(`${endpoint.fullPath}: parameter ${name} has no docs`);
    const { description: _en, 'x-description-pl': _pl, ...json } = jsonSchemaOf(schema, components);
    return {
      name,
      in: isPath(name) ? 'path' : 'query',
      // A parameter is required when leaving it out fails; optional ones and defaults pass.
      required: isPath(name) || !schema.safeParse(undefined).success,
      description: texts.en,
      'x-description-pl': texts.pl,
      schema: json,
    };
  });
}

/** A stable operation id: the data set and the endpoint's path, e.g. `rcn.transactions.transactionGmlId`. */
export const operationId = (dataset: Dataset, endpoint: Endpoint) =>
  [
    dataset.name,
    ...endpoint.path
      .split('/')
      .filter(Boolean)
      .map((segment) => segment.replace(/[{}]/g, '')),
  ].join('.');

export function openApiDocument(datasets: readonly Dataset[], options: OpenApiOptions = {}) {
  const schemas: SchemaComponents = {};
  const problemSchema = jsonSchemaOf(problem, schemas);
  const paths: Record<string, unknown> = {};
  for (const dataset of datasets) {
    for (const endpoint of dataset.endpoints) {
      const responses: Record<string, unknown> = {
        200: {
          description: endpoint.summary.en,
          'x-description-pl': endpoint.summary.pl,
          content: { 'application/json': { schema: jsonSchemaOf(endpoint.response, schemas) } },
        },
      };
      // 400 carries the endpoint's own example; the others are the same everywhere. The example's
      // `type` and `instance` are absolute, as the server sends them: on the server's address, or
      // the address `npm start` serves on when the document names none.
      const example = invalidRequestExample(endpoint, { base: options.serverUrl ?? EXAMPLE_ORIGIN });
      for (const status of problemsOf(endpoint)) {
        responses[status.status] =
          status.status === 400
            ? { ...problemResponse(status, problemSchema), content: { 'application/problem+json': { schema: problemSchema, example: example.body } } }
            : { $ref: `#/components/responses/${status.name}` };
      }
      paths[endpoint.fullPath] = {
        get: {
          operationId: operationId(dataset, endpoint),
          tags: [dataset.name],
          summary: endpoint.summary.en,
          'x-summary-pl': endpoint.summary.pl,
          ...(endpoint.extension ? { description: endpoint.extension.en, 'x-description-pl': endpoint.extension.pl } : {}),
          parameters: parametersOf(endpoint, schemas),
          responses,
        },
      };
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'odsnap v1',
      version: 'v1',
      description: 'Read-only public open data: every v1 endpoint answered from a versioned snapshot. Every endpoint also takes version=v1.',
      'x-description-pl': 'Publiczne otwarte dane tylko do odczytu: każdy punkt końcowy v1 odpowiada z wersjonowanej migawki. Każdy przyjmuje też version=v1.',
      license: { name: 'CC BY 4.0 (the data)', identifier: 'CC-BY-4.0' },
    },
    servers: [{ url: options.serverUrl ?? '/' }],
    // Public data: no operation asks for credentials (spec section 5).
    security: [],
    tags: datasets.map((dataset) => ({
      name: dataset.name,
      description: `${dataset.title.en}. ${dataset.description.en}`,
      'x-description-pl': `${dataset.title.pl}. ${dataset.description.pl}`,
    })),
    paths,
    components: {
      schemas,
      // 400 is every endpoint's own, with its example; the others are shared.
      responses: Object.fromEntries(
        problemStatuses.filter((status) => status.status !== 400).map((status) => [status.name, problemResponse(status, problemSchema)]),
      ),
    },
  };
}

function problemResponse(status: ProblemStatus, schema: JsonSchema) {
  return {
    description: status.when.en,
    'x-description-pl': status.when.pl,
    content: { 'application/problem+json': { schema } },
    ...(status.status === 405 ? { headers: { Allow: { description: 'GET, HEAD, OPTIONS', schema: { type: 'string' } } } } : {}),
  };
}

export type OpenApiDocument = ReturnType<typeof openApiDocument>;
