import { readdir, readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasets } from '../../../datasets/index.ts';
import { buildStatic } from '../../../scripts/static/build-static.ts';
import { nginxBinary, startNginx, type RunningNginx } from '../../fixtures/nginx.ts';
import { raw } from '../../fixtures/raw-http.ts';
import { tempDir, tinyDataDir } from '../../fixtures/tiny.ts';

// CI installs nginx (.ci/run) and must run these; elsewhere they need it installed.
describe.skipIf(!nginxBinary && !process.env.CI)('nginx serving the tree with the generated snippet', () => {
  let out: string;
  let tree: string;
  let nginx: RunningNginx;

  beforeAll(async () => {
    const dir = await tempDir('nginx');
    out = join(dir, 'dist');
    await buildStatic({ dataDir: tinyDataDir(), out, datasets, site: true });
    tree = await realpath(out);
    nginx = await startNginx(out, join(out, 'nginx.conf'), join(dir, 'nginx'));
  });
  afterAll(() => nginx?.stop());

  it('answers br and gzip clients with the precompressed variant, and the rest with the file', async () => {
    const path = '/api/public/rcn/transactions.json';
    const plain = await readFile(join(tree, path));
    const br = await raw(nginx.url, { path, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(br.headers['access-control-allow-origin']).toBe('*');
    expect(br.headers['cache-control']).toBe('public, max-age=300');
    expect(brotliDecompressSync(br.body).equals(plain)).toBe(true);

    const gzip = await raw(nginx.url, { path, headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).equals(plain)).toBe(true);

    const identity = await raw(nginx.url, { path });
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body.equals(plain)).toBe(true);
  });

  it('says Vary: Accept-Encoding wherever it answers with a variant, so shared caches keep them apart', async () => {
    for (const path of ['/api/public/index.json', '/downloads/catalogue.json', '/downloads/dcat.jsonld', '/datapackage.json', '/docs/']) {
      const answer = await raw(nginx.url, { path, headers: { 'accept-encoding': 'br' } });
      expect(answer.status, path).toBe(200);
      expect(answer.headers['content-encoding'], path).toBe('br');
      expect(String(answer.headers.vary).toLowerCase(), path).toContain('accept-encoding');
    }
    const dcat = await raw(nginx.url, { path: '/downloads/dcat.jsonld' });
    expect(dcat.headers['content-type']).toBe('application/ld+json; charset=utf-8');
  });

  it('answers a range of a Parquet file with 206 and its media type', async () => {
    const catalogue = JSON.parse(await readFile(join(tree, 'downloads/catalogue.json'), 'utf8'));
    const file = catalogue.tables.flatMap((t: { files: { url: string; bytes: number }[] }) => t.files).find((f: { bytes: number }) => f.bytes > 100);
    const answer = await raw(nginx.url, { path: file.url, headers: { range: 'bytes=0-3' } });
    expect(answer.status).toBe(206);
    expect(answer.headers['content-range']).toBe(`bytes 0-3/${file.bytes}`);
    expect(answer.headers['content-type']).toBe('application/vnd.apache.parquet');
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    expect(answer.body.toString()).toBe('PAR1');
  });

  it('serves CSV downloads as the gzip files they are, to every client, and the DuckDB script as SQL', async () => {
    const catalogue = JSON.parse(await readFile(join(tree, 'downloads/catalogue.json'), 'utf8'));
    const csv = catalogue.tables[0].files[0].csv;
    for (const encoding of ['gzip', 'br', undefined]) {
      const answer = await raw(nginx.url, { path: csv.url, headers: encoding ? { 'accept-encoding': encoding } : {} });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('application/gzip');
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect(answer.headers['access-control-allow-origin']).toBe('*');
      expect(answer.body.equals(await readFile(join(tree, csv.url)))).toBe(true);
    }
    const script = await raw(nginx.url, { path: '/downloads/odsnap.sql' });
    expect(script.headers['content-type']).toBe('application/sql; charset=utf-8');
    expect(script.body.toString()).toContain('CREATE OR REPLACE VIEW "rcn_transactions"');
  });

  it("serves the site's pages by directory, and its content-named assets for a year, the wasm module compressed", async () => {
    for (const path of ['/', '/pl/', '/docs/', `/datasets/${datasets[0]!.name}/`, '/query/']) {
      const page = await raw(nginx.url, { path, headers: { 'accept-encoding': 'br' } });
      expect(page.status, path).toBe(200);
      expect(page.headers['content-type'], path).toBe('text/html; charset=utf-8');
      expect(brotliDecompressSync(page.body).equals(await readFile(join(tree, path, 'index.html'))), path).toBe(true);
    }
    const wasm = (await readdir(join(tree, '_astro'))).find((name) => name.endsWith('.wasm'))!;
    const module = await raw(nginx.url, { path: `/_astro/${wasm}`, headers: { 'accept-encoding': 'gzip' } });
    expect(module.headers['content-type']).toBe('application/wasm');
    expect(module.headers['content-encoding']).toBe('gzip');
    expect(module.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('serves the tree as a whole: index, items by id, and the data package', async () => {
    const index = JSON.parse((await raw(nginx.url, { path: '/api/public/index.json' })).body.toString());
    const listing = JSON.parse((await raw(nginx.url, { path: index.datasets[0].endpoints[1].listing })).body.toString());
    const item = await raw(nginx.url, { path: listing.files[0].url });
    expect(item.status).toBe(200);
    expect((await raw(nginx.url, { path: '/datapackage.json' })).status).toBe(200);
  });

  it("answers a path that is no page with the site's 404 page, status 404, and a missing JSON file with a plain 404", async () => {
    const page = await raw(nginx.url, { path: '/datasets/nowhere/', headers: { 'accept-encoding': 'identity' } });
    expect(page.status).toBe(404);
    expect(page.body.equals(await readFile(join(tree, '404.html')))).toBe(true);
    const file = await raw(nginx.url, { path: '/api/public/nope.json' });
    expect(file.status).toBe(404);
    expect(file.body.toString()).not.toContain('data-not-found');
  });
});
