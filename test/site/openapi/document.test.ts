import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasets } from '../../../datasets/index.ts';
import { openApiDocument } from '../../../site/openapi/document.ts';
import { invalidRequestExample } from '../../../site/openapi/problems.ts';
import { parking } from '../../fixtures/parking/index.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';

/** Every `$ref` anywhere in a value. */
function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => refsIn(item, found));
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') found.push(inner);
      else refsIn(inner, found);
    }
  }
  return found;
}

describe('openApiDocument', () => {
  const document = openApiDocument([...datasets, parking], { serverUrl: 'https://data.example.org' });

  it('is OpenAPI 3.1 with one GET operation per endpoint, a fifth data set included', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual([...datasets, parking].flatMap((d) => d.endpoints.map((e) => e.fullPath)));
    const ids = Object.values(document.paths).map((path) => (path as { get: { operationId: string } }).get.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(document.servers).toEqual([{ url: 'https://data.example.org' }]);
  });

  it('resolves every $ref inside the document', () => {
    const refs = refsIn(document);
    expect(refs.length).toBeGreaterThan(20);
    for (const ref of refs) {
      const target = ref
        .split('/')
        .slice(1)
        .reduce<any>((node, key) => node?.[key], document);
      expect(target, ref).toBeDefined();
    }
  });

  it('gives every parameter a schema, its place and docs in both languages, and path ones as required', () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const param of (item as { get: { parameters: any[] } }).get.parameters) {
        expect(param.schema, `${path} ${param.name}`).toBeTypeOf('object');
        expect(param.description && param['x-description-pl'], `${path} ${param.name}`).toBeTruthy();
        expect(path.includes(`{${param.name}}`) ? param.in : 'query', `${path} ${param.name}`).toBe(param.in);
        if (param.in === 'path') expect(param.required).toBe(true);
      }
    }
  });

  it('answers client errors with problem+json, and 404 only where something can be missing', () => {
    const responses = (path: string) => (document.paths[path] as { get: { responses: Record<string, any> } }).get.responses;
    expect(Object.keys(responses('/api/public/rcn/transactions'))).toEqual(['200', '400', '405']);
    expect(Object.keys(responses('/api/public/rcn/transactions/{transactionGmlId}'))).toEqual(['200', '400', '404', '405']);
    expect(responses('/api/public/citybike/rides')[400].content['application/problem+json'].example).toMatchObject({
      status: 400,
      param: 'from',
      detail: 'from is required',
    });
  });
});

describe('the published OpenAPI document', () => {
  /** What `redocly lint`, with its recommended rules, finds in a document. */
  async function lint(document: unknown) {
    const file = join(await mkdtemp(join(tmpdir(), 'odsnap-openapi-')), 'openapi.json');
    await writeFile(file, JSON.stringify(document, null, 2));
    const cli = fileURLToPath(new URL('../../../node_modules/@redocly/cli/bin/cli.js', import.meta.url));
    const run = await promisify(execFile)(process.execPath, [cli, 'lint', file, '--extends', 'recommended', '--format', 'json'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    }).catch((error: { stdout: string }) => error);
    return JSON.parse(run.stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };
  }

  it.each([
    ['without a server (as the site publishes it)', {}],
    ['with a server', { serverUrl: 'https://data.example.org/odsnap' }],
  ])('passes redocly lint with no error and no warning, %s', async (_, options) => {
    const { totals, problems } = await lint(openApiDocument(datasets, options));
    expect(problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('is caught by the lint when it is wrong', async () => {
    const wrong = openApiDocument(datasets);
    (wrong.paths['/api/public/rcn/transactions'] as { get: { operationId?: string } }).get.operationId = undefined;
    expect((await lint(wrong)).totals.warnings + (await lint(wrong)).totals.errors).toBeGreaterThan(0);
  });
});

describe('the 400 examples', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it('are what the server answers to the same requests', async () => {
    for (const endpoint of datasets.flatMap((dataset) => dataset.endpoints)) {
      const pathValues = Object.fromEntries(endpoint.pathParams.map((name) => [name, name === 'year' ? '2024' : 'some-id']));
      const example = invalidRequestExample(endpoint, { base: server.url, pathValues });
      const response = await server.fetch(example.target);
      expect(response.status, example.target).toBe(400);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(await response.json(), example.target).toEqual(example.body);
    }
  });
});
