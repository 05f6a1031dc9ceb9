import { readdir, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasets } from '../../datasets/index.ts';
import { buildStatic } from '../../scripts/static/build-static.ts';
import { namedLikeAFile, staticTree } from '../../server/static-tree.ts';
import { raw, type RawResponse } from '../fixtures/raw-http.ts';
import { startTestServer, type TestServer } from '../fixtures/server.ts';
import { tempDir, tinyDataDir } from '../fixtures/tiny.ts';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const SITE_INDEX = '<!doctype html><title>odsnap</title><h1>The site</h1>';
const NOT_FOUND = '<!doctype html><title>Page not found</title><h1>Page not found</h1>';

/**
 * Who answers each kind of URL when the server has a static tree beside the API, told apart by
 * what only each answerer sends: a file of the tree has `accept-ranges`, the API's answers name
 * their snapshot, a problem is problem JSON.
 */
function answerer(answer: RawResponse): string {
  const type = String(answer.headers['content-type']);
  if (answer.headers['accept-ranges'] === 'bytes') return `file ${answer.status} ${type}`;
  if (type === 'application/problem+json') return `problem ${answer.status} ${(JSON.parse(answer.body.toString()) as { param?: string }).param ?? ''}`.trim();
  if (answer.headers['x-odsnap-snapshot']) return `api ${answer.status} ${type}`;
  return `other ${answer.status} ${type} ${answer.headers['cache-control']}`;
}

describe('who answers a URL, with a static tree beside the API', () => {
  let server: TestServer;
  let tree: string;
  let item: string;
  /** The paths the tree was asked for. */
  const treeAsked: string[] = [];

  beforeAll(async () => {
    const out = join(await tempDir('routes'), 'dist');
    await buildStatic({ dataDir: tinyDataDir(), out, datasets });
    tree = await realpath(out);
    // What the site adds to a tree: its home page and its page for paths that are no page.
    await writeFile(join(tree, 'index.html'), SITE_INDEX);
    await writeFile(join(tree, '404.html'), NOT_FOUND);
    item = (await readdir(join(tree, 'api/public/rcn/transactions'))).find((name) => name.endsWith('.json'))!.slice(0, -'.json'.length);
    const files = staticTree(out);
    server = await startTestServer({ tree: { ...files, fileAt: (path) => (treeAsked.push(path), files.fileAt(path)) } });
  });
  afterAll(() => server?.close());

  const get = (path: string, accept?: string) => raw(server.url, { path, headers: accept ? { accept } : {} });

  it('answers a v1 path from the API, a record as well as a list', async () => {
    expect(answerer(await get('/api/public/rcn/transactions?limit=1'))).toBe('api 200 application/json; charset=utf-8');
    const record = await get(`/api/public/rcn/transactions/${item}`);
    expect(answerer(record)).toBe('api 200 application/json; charset=utf-8');
    expect(record.headers['cache-control']).toBe('public, max-age=60');
  });

  it("answers a record's file from the tree, though the v1 router would take its name for an id, percent-encoded or not", async () => {
    for (const path of [`/api/public/rcn/transactions/${item}.json`, `/api/public/rcn/transactions/${item}%2Ejson`]) {
      const file = await get(path);
      expect(answerer(file), path).toBe('file 200 application/json; charset=utf-8');
      expect(file.headers['cache-control'], path).toBe('public, max-age=300');
    }
    // One the tree does not hold is the v1 endpoint's: a record whose id is `nope.json`, which there is not.
    expect(answerer(await get('/api/public/rcn/transactions/nope.json'))).toBe('problem 404 transactionGmlId');
  });

  it('answers what only the tree holds under /api/public, and its downloads, from the tree', async () => {
    expect(answerer(await get('/api/public/index.json'))).toBe('file 200 application/json; charset=utf-8');
    // The status as of the build, beside the server's own at /api/public/status.
    expect(answerer(await get('/api/public/status.json'))).toBe('file 200 application/json; charset=utf-8');
    expect(answerer(await get('/api/public/rcn/changes.atom'))).toBe('file 200 application/atom+xml; charset=utf-8');
    expect(answerer(await get('/downloads/odsnap.sql'))).toBe('file 200 application/sql; charset=utf-8');
  });

  it("answers / with the site's page, and /api/public with the API's index", async () => {
    const home = await get('/');
    expect(answerer(home)).toBe('file 200 text/html; charset=utf-8');
    expect(home.body.toString()).toBe(SITE_INDEX);
    const index = await get('/api/public');
    expect(answerer(index)).toBe('api 200 application/json; charset=utf-8');
    expect(Object.keys(JSON.parse(index.body.toString()))).toEqual(['snapshot', 'licence', 'datasets', 'sql', 'health', 'status']);
    // With a slash it is no path of the API's, nor a folder of the tree with a page.
    expect(answerer(await get('/api/public/', BROWSER))).toBe('problem 404');
  });

  it("answers odsnap's own paths itself: SQL, health, status, metrics, the problem types", async () => {
    expect(answerer(await get('/api/sql'))).toBe('problem 400 q');
    expect(answerer(await get('/healthz'))).toBe('other 200 application/json no-store');
    expect(answerer(await get('/api/public/status'))).toBe('api 200 application/json; charset=utf-8');
    expect(answerer(await get('/metrics'))).toBe('other 200 text/plain; version=0.0.4; charset=utf-8 no-store');
    expect(answerer(await get('/problems/not-found'))).toBe('other 200 text/html; charset=utf-8 public, max-age=86400');
    // A type there is not is a problem, even to a browser.
    expect(answerer(await get('/problems/nope', BROWSER))).toBe('problem 404');
  });

  it("answers a path nothing serves with the tree's 404 page to a browser, and a problem to an API client", async () => {
    const page = await get('/nowhere', BROWSER);
    expect(`${page.status} ${page.headers['content-type']} ${page.headers['cache-control']}`).toBe('404 text/html; charset=utf-8 no-store');
    expect(page.body.toString()).toBe(NOT_FOUND);
    expect(answerer(await get('/nowhere'))).toBe('problem 404');
    expect(answerer(await get('/nowhere', 'application/json'))).toBe('problem 404');
    // Under /api/ a browser gets the problem too.
    expect(answerer(await get('/api/public/nothing', BROWSER))).toBe('problem 404');
  });

  it('asks the tree for no v1 path but those named like a file', async () => {
    treeAsked.length = 0;
    await get('/api/public/rcn/transactions?limit=1');
    await get(`/api/public/rcn/transactions/${item}`);
    await get('/api/public/citybike/bikes/nope');
    expect(treeAsked).toEqual([]);
    await get(`/api/public/rcn/transactions/${item}.json`);
    expect(treeAsked).toEqual([`/api/public/rcn/transactions/${item}.json`]);
  });

  it('answers HEAD as GET, without a body, from whoever answers the path', async () => {
    for (const [path, by] of [
      ['/api/public/rcn/transactions?limit=1', 'api 200 application/json; charset=utf-8'],
      ['/api/public/index.json', 'file 200 application/json; charset=utf-8'],
      ['/healthz', 'other 200 application/json no-store'],
    ] as const) {
      const head = await raw(server.url, { path, method: 'HEAD' });
      expect(answerer(head), path).toBe(by);
      expect(head.body.length, path).toBe(0);
    }
  });
});

describe('a path named like a file of the static tree', () => {
  it.each([
    ['/api/public/rcn/transactions/T1.json', true],
    ['/api/public/rcn/transactions/T1.JSON', true],
    ['/api/public/rcn/transactions/T1%2Ejson', true],
    ['/api/public/rcn/transactions/T1.json.br', true],
    ['/api/public/rcn/changes.atom', true],
    ['/downloads/rcn/transactions/part-0.parquet', true],
    ['/datasets/rcn/', true],
    ['/api/public/rcn/transactions/T1', false],
    ['/api/public/rcn/transactions/PL.PZGiK.5346.RCN_0037be37_2025-08-01T10-56-57Z', false],
    ['/api/public/rcn/transactions/%zz.json', false],
    ['/healthz', false],
  ])('%s: %s', (path, named) => {
    expect(namedLikeAFile(path)).toBe(named);
  });
});
