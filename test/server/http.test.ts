import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw } from '../fixtures/raw-http.ts';
import { startTestServer, type TestServer } from '../fixtures/server.ts';

let server: TestServer;
beforeAll(async () => (server = await startTestServer()));
afterAll(() => server.close());

const path = '/api/public/rcn/transactions?limit=20';

describe('HTTP', () => {
  it('compresses with br or gzip as the client asks, to the same JSON', async () => {
    const plain = await raw(`${server.url}${path}`);
    const br = await raw(`${server.url}${path}`, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    const gz = await raw(`${server.url}${path}`, { headers: { 'accept-encoding': 'gzip;q=1, br;q=0' } });
    const preferred = await raw(`${server.url}${path}`, { headers: { 'accept-encoding': 'br;q=0.5, gzip' } });
    expect(preferred.headers['content-encoding']).toBe('gzip');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(br.headers['content-encoding']).toBe('br');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    expect(br.body.length).toBeLessThan(plain.body.length / 3);
    // The test server has no public URL: its links follow Host.
    expect(br.headers.vary).toBe('Accept-Encoding, Host');
  });

  it('gives each representation a strong ETag, stable for the snapshot, and 304 when it still matches', async () => {
    const first = await raw(`${server.url}${path}`, { headers: { 'accept-encoding': 'br' } });
    const again = await raw(`${server.url}${path}`, { headers: { 'accept-encoding': 'br' } });
    const plain = await raw(`${server.url}${path}`);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(again.headers.etag).toBe(etag);
    expect(plain.headers.etag).not.toBe(etag);
    const revalidated = await raw(`${server.url}${path}`, { headers: { 'accept-encoding': 'br', 'if-none-match': etag } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body.length).toBe(0);
    expect(revalidated.headers.etag).toBe(etag);
    expect((await raw(`${server.url}${path}`, { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const get = await raw(`${server.url}${path}`);
    const head = await raw(`${server.url}${path}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    for (const name of ['content-type', 'content-length', 'etag', 'cache-control']) expect(head.headers[name], name).toBe(get.headers[name]);
  });

  it('answers a record asked for again as it did the first time, in each encoding, with its ETag, 304 and HEAD', async () => {
    const list = JSON.parse((await raw(`${server.url}/api/public/rcn/transactions?limit=1`)).body.toString());
    const record = `${server.url}${new URL(list.items[0].uri).pathname}`;
    const [plain] = [await raw(record)];
    expect(plain.body.length).toBeGreaterThan(1024);
    for (const encoding of ['identity', 'br', 'gzip']) {
      const headers = { 'accept-encoding': encoding };
      const [first, again, head] = [await raw(record, { headers }), await raw(record, { headers }), await raw(record, { headers, method: 'HEAD' })];
      const { date: _date, ...firstHeaders } = first.headers;
      for (const answer of [again, head]) {
        const { date: _, ...answerHeaders } = answer.headers;
        expect(answerHeaders, encoding).toEqual(firstHeaders);
      }
      expect(again.body.equals(first.body)).toBe(true);
      expect(head.body.length).toBe(0);
      const body = encoding === 'br' ? brotliDecompressSync(first.body) : encoding === 'gzip' ? gunzipSync(first.body) : first.body;
      expect(body.equals(plain.body), encoding).toBe(true);
      const revalidated = await raw(record, { headers: { ...headers, 'if-none-match': first.headers.etag as string } });
      expect(revalidated.status).toBe(304);
      expect(revalidated.headers['content-length']).toBeUndefined();
    }
  });

  it('allows any origin, on answers and on errors, and answers CORS preflight', async () => {
    expect((await raw(`${server.url}${path}`)).headers['access-control-allow-origin']).toBe('*');
    expect((await raw(`${server.url}/api/public/nope`)).headers['access-control-allow-origin']).toBe('*');
    const preflight = await raw(`${server.url}${path}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://example.org', 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-methods']).toContain('GET');
  });

  it('says how long answers may be cached, and never caches errors', async () => {
    expect((await raw(`${server.url}${path}`)).headers['cache-control']).toMatch(/max-age=\d+/);
    expect((await raw(`${server.url}/api/public/rcn/transactions?limit=0`)).headers['cache-control']).toBe('no-store');
  });

  it('says answers whose links follow the Host header vary by Host, unless links are built on --public-url', async () => {
    for (const path of ['/api/public/citybike/seasons', '/api/public']) {
      const answer = await raw(`${server.url}${path}`, { headers: { host: 'mirror.example.org' } });
      expect(answer.headers['cache-control'], path).toMatch(/^public/);
      expect(answer.body.toString(), path).toContain('http://mirror.example.org/');
      expect(answer.headers.vary, path).toBe('Accept-Encoding, Host');
    }
    const fixed = await startTestServer({ publicUrl: 'https://data.example.org' });
    try {
      for (const path of ['/api/public/citybike/seasons', '/api/public']) {
        const answer = await raw(`${fixed.url}${path}`, { headers: { host: 'mirror.example.org' } });
        expect(answer.body.toString(), path).toContain('https://data.example.org/');
        expect(answer.headers.vary, path).toBe('Accept-Encoding');
      }
    } finally {
      await fixed.close();
    }
  });

  it('reports health and the snapshot it serves', async () => {
    const health = await server.json('/healthz');
    expect(health).toEqual({ status: 'ok', snapshot: server.host.current.id });
  });

  it('logs one line per request with method, path, query, status and time', async () => {
    server.logs.length = 0;
    await raw(`${server.url}/api/public/citybike/bikes?x=1`);
    await raw(`${server.url}/api/public/nope`);
    expect(server.logs).toMatchObject([
      { method: 'GET', path: '/api/public/citybike/bikes', query: 'x=1', status: 200, ms: expect.any(Number) },
      { method: 'GET', path: '/api/public/nope', query: '', status: 404, ms: expect.any(Number) },
    ]);
  });
});

describe('shutdown', () => {
  it('lets a running request finish, then refuses new ones', async () => {
    const stopping = await startTestServer();
    const slow = raw(`${stopping.url}/api/sql?q=${encodeURIComponent('SELECT sum(hash(i)) AS h FROM range(60000000) t(i)')}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const closed = stopping.close();
    const answered = await slow;
    await closed;
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.body.toString()).rows).toHaveLength(1);
    await expect(raw(`${stopping.url}/healthz`)).rejects.toThrow(/ECONNREFUSED/);
  });
});
