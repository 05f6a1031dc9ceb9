import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticTree } from '../../../server/static-tree.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';
import { tempDir } from '../../fixtures/tiny.ts';

const PAGE = '<!doctype html><title>Page not found</title><h1>Page not found</h1>';
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe("the site's 404 page in odsnap serve", () => {
  let withPage: TestServer;
  let withoutPage: TestServer;

  beforeAll(async () => {
    const tree = await tempDir('not-found');
    await mkdir(join(tree, 'api/public'), { recursive: true });
    await writeFile(join(tree, 'api/public/index.json'), '{}');
    await writeFile(join(tree, '404.html'), PAGE);
    withPage = await startTestServer({ tree: staticTree(tree) });
    const bare = await tempDir('no-not-found');
    await mkdir(join(bare, 'api/public'), { recursive: true });
    await writeFile(join(bare, 'api/public/index.json'), '{}');
    withoutPage = await startTestServer({ tree: staticTree(bare) });
  });
  afterAll(async () => {
    await withPage?.close();
    await withoutPage?.close();
  });

  it('answers a browser asking for a path that is no page with the 404 page, status 404, not to be cached', async () => {
    const response = await withPage.fetch('/datasets/nowhere/', { headers: { accept: BROWSER } });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('etag')).toBeNull();
    expect(await response.text()).toBe(PAGE);
  });

  it('answers HEAD with the headers alone', async () => {
    const response = await withPage.fetch('/nowhere', { method: 'HEAD', headers: { accept: BROWSER } });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await response.text()).toBe('');
  });

  it('keeps problem JSON under /api/, whatever the client accepts', async () => {
    const response = await withPage.fetch('/api/public/nope', { headers: { accept: BROWSER } });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(((await response.json()) as { status: number }).status).toBe(404);
  });

  it('keeps problem JSON for clients that do not ask for HTML', async () => {
    for (const accept of [undefined, 'application/json', '*/*']) {
      const response = await withPage.fetch('/nowhere', accept ? { headers: { accept } } : {});
      expect(response.status, String(accept)).toBe(404);
      expect(response.headers.get('content-type'), String(accept)).toBe('application/problem+json');
    }
  });

  it('answers with problem JSON when the tree has no 404 page', async () => {
    const response = await withoutPage.fetch('/nowhere', { headers: { accept: BROWSER } });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
  });

  it("still serves the tree's files and the API", async () => {
    expect((await withPage.fetch('/api/public/index.json', { headers: { accept: BROWSER } })).status).toBe(200);
    expect((await withPage.fetch('/healthz', { headers: { accept: BROWSER } })).status).toBe(200);
  });
});
