import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, realpath, rename, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import { asyncBufferFromUrl, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasets } from '../../datasets/index.ts';
import { readList, rowDecoder } from '../../core/db/columns.ts';
import { quoteString } from '../../core/db/duckdb.ts';
import { buildStatic } from '../../scripts/static/build-static.ts';
import { staticTree } from '../../server/static-tree.ts';
import { fromHyparquet } from '../fixtures/hyparquet.ts';
import { raw } from '../fixtures/raw-http.ts';
import { startTestServer, type TestServer } from '../fixtures/server.ts';
import { tempDir, tinyDataDir, withDatabase } from '../fixtures/tiny.ts';

describe('serve with the static tree beside the API', () => {
  let out: string;
  let tree: string;
  let server: TestServer;
  let catalogue: { tables: { dataset: string; table: string; files: { url: string; rows: number; bytes: number; csv: { url: string } }[] }[] };

  beforeAll(async () => {
    out = join(await tempDir('serve-static'), 'dist');
    await buildStatic({ dataDir: tinyDataDir(), out, datasets });
    tree = await realpath(out);
    server = await startTestServer({ tree: staticTree(out) });
    catalogue = JSON.parse(await readFile(join(tree, 'downloads/catalogue.json'), 'utf8'));
  });
  afterAll(() => server?.close());

  const biggest = () => catalogue.tables.flatMap((t) => t.files).sort((a, b) => b.bytes - a.bytes)[0]!;

  it('serves a JSON file as it is, or its br or gzip variant to clients that take one', async () => {
    const plain = await readFile(join(tree, 'api/public/index.json'));
    const identity = await raw(server.url, { path: '/api/public/index.json', headers: { 'accept-encoding': 'identity' } });
    expect(identity.status).toBe(200);
    expect(identity.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(identity.headers['access-control-allow-origin']).toBe('*');
    expect(identity.body.equals(plain)).toBe(true);

    const br = await raw(server.url, { path: '/api/public/index.json', headers: { 'accept-encoding': 'gzip, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(brotliDecompressSync(br.body).equals(plain)).toBe(true);

    const gzip = await raw(server.url, { path: '/api/public/index.json', headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).equals(plain)).toBe(true);
    expect(new Set([identity.headers.etag, br.headers.etag, gzip.headers.etag]).size).toBe(3);
  });

  it('serves an Atom feed as Atom, compressed for clients that take it', async () => {
    const feed = await raw(server.url, { path: '/api/public/rcn/changes.atom', headers: { 'accept-encoding': 'br' } });
    expect(feed.status).toBe(200);
    expect(feed.headers['content-type']).toBe('application/atom+xml; charset=utf-8');
    expect(brotliDecompressSync(feed.body).equals(await readFile(join(tree, 'api/public/rcn/changes.atom')))).toBe(true);
  });

  it('answers 304 to a client that has the file, per variant', async () => {
    const first = await raw(server.url, { path: '/api/public/index.json', headers: { 'accept-encoding': 'br' } });
    const again = await raw(server.url, {
      path: '/api/public/index.json',
      headers: { 'accept-encoding': 'br', 'if-none-match': first.headers.etag as string },
    });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('serves a CSV download as the gzip file it is, whatever the client takes, and the DuckDB script as SQL', async () => {
    const csv = biggest().csv;
    for (const encoding of ['gzip', 'br', 'identity']) {
      const answer = await raw(server.url, { path: csv.url, headers: { 'accept-encoding': encoding } });
      expect(answer.headers['content-type']).toBe('application/gzip');
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect(answer.body.equals(await readFile(join(tree, csv.url)))).toBe(true);
    }
    const script = await raw(server.url, { path: '/downloads/odsnap.sql' });
    expect(script.headers['content-type']).toBe('application/sql; charset=utf-8');
  });

  it('answers byte ranges of a Parquet file with 206, and 416 past its end', async () => {
    const file = biggest();
    const head = await raw(server.url, { path: file.url, headers: { range: 'bytes=0-3' } });
    expect(head.status).toBe(206);
    expect(head.headers['content-range']).toBe(`bytes 0-3/${file.bytes}`);
    expect(head.headers['content-type']).toBe('application/vnd.apache.parquet');
    expect(head.body.toString()).toBe('PAR1');
    const tail = await raw(server.url, { path: file.url, headers: { range: 'bytes=-4' } });
    expect(tail.status).toBe(206);
    expect(tail.body.toString()).toBe('PAR1');
    const middle = await raw(server.url, { path: file.url, headers: { range: `bytes=100-${file.bytes + 50}` } });
    expect(middle.body.equals((await readFile(join(tree, file.url))).subarray(100))).toBe(true);
    const past = await raw(server.url, { path: file.url, headers: { range: `bytes=${file.bytes}-` } });
    expect(past.status).toBe(416);
    expect(past.headers['content-range']).toBe(`bytes */${file.bytes}`);
  });

  it('lets hyparquet read a download over HTTP by ranges, with the rows DuckDB reads', async () => {
    const file = catalogue.tables.filter((t) => t.dataset === 'rcn' && t.table === 'properties').flatMap((t) => t.files)[0]!;
    const table = datasets.find((d) => d.name === 'rcn')!.tables.properties!;
    const statuses: number[] = [];
    // Watches what hyparquet asks for; the requests are real ones to the server.
    const watching: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      statuses.push(response.status);
      return response;
    };
    const remote = await asyncBufferFromUrl({ url: new URL(file.url, server.url).toString(), fetch: watching });
    const read = (await parquetReadObjects({ file: remote, compressors })).map((row) =>
      Object.fromEntries(Object.entries(table.columns).map(([name, column]) => [name, fromHyparquet(row[name], column)])),
    );
    const duck = await withDatabase(async (db) =>
      (await db.rows(`SELECT ${readList(table.columns)} FROM read_parquet(${quoteString(join(tree, file.url))})`)).map(rowDecoder(table.columns)),
    );
    expect(read).toEqual(duck);
    expect(read).toHaveLength(file.rows);
    expect(statuses.length).toBeGreaterThan(1);
    expect(statuses.slice(1).every((status) => status === 206)).toBe(true);
  });

  it('still answers the API, and files only from inside the tree', async () => {
    const page = await server.json('/api/public/rcn/transactions?limit=1');
    expect(page.items).toHaveLength(1);
    expect((await raw(server.url, { path: '/api/public/rcn/transactions/nope.json' })).status).toBe(404);
    for (const path of ['/../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/api/public/..%2f..%2fnginx.conf', '/.git/config']) {
      const answer = await raw(server.url, { path });
      expect(answer.status, path).toBeGreaterThanOrEqual(400);
      expect(answer.body.toString(), path).not.toContain('root:');
    }
  });
});

describe('serve with a static tree of files too big to keep in memory', () => {
  it('answers ranges of them, short and long, asked once or again, and the whole file, from the tree as it is now', async () => {
    const dir = await tempDir('serve-static-big');
    const trees = [join(dir, 'one'), join(dir, 'two')];
    const contents = trees.map((_, i) => Buffer.from(Array.from({ length: 3 * 1024 * 1024 }, (_, at) => (at * 31 + i * 7) % 251)));
    for (const [i, tree] of trees.entries()) {
      await mkdir(join(tree, 'downloads'), { recursive: true });
      await writeFile(join(tree, 'downloads', 'big.parquet'), contents[i]!);
    }
    const link = join(dir, 'dist');
    await symlink(trees[0]!, link);
    const served = staticTree(link);
    const server = await startTestServer({ tree: served });
    try {
      const get = (range?: string) => raw(server.url, { path: '/downloads/big.parquet', headers: range ? { range } : {} });
      // Each three times: read, read again and kept, then answered from what was kept.
      for (const [start, end] of [
        [0, 65535],
        [1_000_000, 1_065_535],
        [3 * 1024 * 1024 - 10, 3 * 1024 * 1024 - 1],
        [10, 2_500_000],
      ] as const) {
        for (let ask = 1; ask <= 3; ask++) {
          const answer = await get(`bytes=${start}-${end}`);
          expect(answer.status).toBe(206);
          expect(answer.body.equals(contents[0]!.subarray(start, end + 1)), `${start}-${end}, ask ${ask}`).toBe(true);
        }
      }
      const whole = await get();
      expect(whole.status).toBe(200);
      expect(whole.body.equals(contents[0]!)).toBe(true);
      // A rebuild swaps the link (a new one renamed over it): the next ranges are of the new file, not of a descriptor kept open on the old one.
      await symlink(trees[1]!, `${link}.new`);
      await rename(`${link}.new`, link);
      served.clear();
      for (let ask = 1; ask <= 3; ask++) {
        const after = await get('bytes=0-65535');
        expect(after.body.equals(contents[1]!.subarray(0, 65536)), `ask ${ask}`).toBe(true);
      }
      // Builds take turns between two trees: the first, written anew, comes back under its old paths.
      const rewritten = Buffer.from(contents[0]!.map((byte) => 255 - byte));
      await writeFile(join(trees[0]!, 'downloads', 'big.parquet'), rewritten);
      await symlink(trees[0]!, `${link}.new`);
      await rename(`${link}.new`, link);
      served.clear();
      const back = await get('bytes=0-65535');
      expect(back.body.equals(rewritten.subarray(0, 65536))).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe('serve --static, with symlinks in the tree', () => {
  it('serves a file only when its real path is inside the tree', async () => {
    const dir = await tempDir('serve-static-links');
    const [tree, outside] = [join(dir, 'tree'), join(dir, 'outside')];
    await mkdir(join(tree, 'api'), { recursive: true });
    await mkdir(outside);
    await writeFile(join(outside, 'secret.json'), '{"secret":true}');
    await writeFile(join(tree, 'api', 'own.json'), '{"own":true}');
    await symlink(join(outside, 'secret.json'), join(tree, 'leak.json'));
    await symlink('../../outside/secret.json', join(tree, 'api', 'relative.json'));
    await symlink(outside, join(tree, 'elsewhere'));
    // The identity is the tree's own, its br variant not.
    await symlink(join(outside, 'secret.json'), join(tree, 'api', 'own.json.br'));
    await symlink('api/own.json', join(tree, 'alias.json'));
    await symlink(tree, join(dir, 'dist'));
    const server = await startTestServer({ tree: staticTree(join(dir, 'dist')) });
    try {
      for (const path of ['/leak.json', '/api/relative.json', '/elsewhere/secret.json']) {
        const answer = await raw(server.url, { path });
        expect(answer.status, path).toBe(404);
        expect(answer.body.toString(), path).not.toContain('"secret":true');
      }
      const own = await raw(server.url, { path: '/api/own.json', headers: { 'accept-encoding': 'br' } });
      expect(own.headers['content-encoding']).toBeUndefined();
      expect(own.body.toString()).toBe('{"own":true}');
      // A symlink to a file of the tree is served.
      expect((await raw(server.url, { path: '/alias.json' })).body.toString()).toBe('{"own":true}');
    } finally {
      await server.close();
    }
  });
});

describe('serve --static, asked for many short ranges of a big file', () => {
  it('keeps ranges asked again within its memory for them, their keys counted: the oldest are read again', async () => {
    const dir = await tempDir('serve-static-ranges');
    // A long path makes long keys: fewer ranges fill the memory.
    const path = `/downloads/${'d'.repeat(250)}/${'e'.repeat(250)}/big.parquet`;
    const file = join(dir, 'tree', path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, Buffer.alloc(1024 * 1024, 1));
    await symlink(join(dir, 'tree'), join(dir, 'dist'));
    const server = await startTestServer({ tree: staticTree(join(dir, 'dist')) });
    try {
      const byteAt = async (at: number) => (await raw(server.url, { path, headers: { range: `bytes=${at}-${at}` } })).body[0];
      // One-byte ranges, each asked twice, so kept: a few kilobytes of bytes, but each with its key.
      const ranges = 8_000;
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          for (let at = next++; at < ranges; at = next++) {
            expect(await byteAt(at)).toBe(1);
            expect(await byteAt(at)).toBe(1);
          }
        }),
      );
      // The file changes where it is (a tree is never written so; here it tells what was kept from what is read).
      await writeFile(file, Buffer.alloc(1024 * 1024, 2));
      expect(await byteAt(ranges - 1)).toBe(1);
      expect(await byteAt(0)).toBe(2);
    } finally {
      await server.close();
    }
  });
});

describe('odsnap serve --static, a real process, asked for paths the tree does not hold', () => {
  /** The process's peak resident memory so far, in MiB (Linux's VmHWM). */
  const peakMiB = (pid: number) => Number(/^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

  it.skipIf(process.platform !== 'linux')('keeps its peak memory bounded through 100,000 unique missing paths and record ids of 8 KiB', async () => {
    const out = join(await tempDir('serve-misses'), 'dist');
    await buildStatic({ dataDir: tinyDataDir(), out, datasets });
    const child = spawn(process.execPath, ['bin/odsnap.js', 'serve', '--data', tinyDataDir(), '--static', out, '--port', '0', '--quiet'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      let err = '';
      child.stderr.on('data', (chunk) => (err += chunk));
      while (!/serving snapshot \S+ at (\S+)/.test(err)) {
        if (child.exitCode !== null) throw new Error(err);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const url = /serving snapshot \S+ at (\S+)/.exec(err)![1]!;
      expect((await raw(url, { path: '/api/public/index.json' })).status).toBe(200);
      const before = peakMiB(child.pid!);
      // Each path is new, and as long as a request target may be: in turn a path nothing answers,
      // and a v1 record by an id no record has (its endpoint found, the record not).
      const filler = 'x'.repeat(8100);
      let sent = 0;
      const pathOf = (n: number) => (n % 2 ? `/missing/${n.toString(36)}/${filler}` : `/api/public/rcn/transactions/${n.toString(36)}${filler}`);
      const result = await autocannon({
        url,
        connections: 16,
        amount: 100_000,
        requests: [{ setupRequest: (request) => ({ ...request, path: pathOf(sent++) }) }],
      });
      const after = peakMiB(child.pid!);
      expect(result.errors).toBe(0);
      expect(result['4xx']).toBe(100_000);
      // What it remembers of misses is a few MiB; the rest is the collector's slack, which levels off.
      const peaks = `peak RSS ${before.toFixed(0)} MiB, then ${after.toFixed(0)} MiB`;
      expect(after - before, peaks).toBeLessThan(192);
      expect(after, peaks).toBeLessThan(512);
    } finally {
      child.kill('SIGINT');
    }
  });
});
