import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSnapshot } from '../../../core/snapshot/read.ts';
import { startDialectUpstream } from '../../fixtures/dialect-upstream.ts';
import { startFaultProxy, type Fault, type FaultProxy } from '../../fixtures/fault-proxy.ts';
import { differences, pullFrom, tempDir } from '../../fixtures/pull.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';
import { tinySnapshot } from '../../fixtures/tiny.ts';

/** Pull against an upstream that answers what no upstream should: bodies nested without end, bodies without end, and waits without end. */

const TRANSACTIONS = '/api/public/rcn/transactions';
const DEPTH = 5_000_000;
const deepPage = `{"items":[{"id":"x","deep":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}],"pagination":{"limit":100,"offset":100,"total":101,"next":null}}`;
/** The second page of transactions, which a pull asks for by offset. */
const isSecondPage = (url: URL) => url.pathname === TRANSACTIONS && url.searchParams.get('offset') === '100';

const cli = fileURLToPath(new URL('../../../bin/odsnap.js', import.meta.url));

let upstream: TestServer;
const proxies: FaultProxy[] = [];
beforeAll(async () => (upstream = await startTestServer()));
afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  await upstream.close();
});

async function proxy(faultFor: (url: URL) => Fault | undefined): Promise<FaultProxy> {
  const started = await startFaultProxy(upstream.url, ({ url }) => faultFor(url));
  proxies.push(started);
  return started;
}

describe('an answer nested without end', () => {
  it('fails its unit, retried like any other, with the reason in the summary; the next pull is not wedged', async () => {
    const dataDir = await tempDir('hostile');
    const always = await proxy((url) => (isSecondPage(url) ? { kind: 'body', text: deepPage } : undefined));
    const failed = await pullFrom(always.url, dataDir, { upstream: { retries: 2 } });
    expect(failed.ok).toBe(false);
    expect(failed.failures.join('\n')).toMatch(/offset=100.*nests arrays and objects deeper than 64 levels.*still after 3 attempts/);
    // Three attempts each time the list is read.
    const asked = always.requests.filter((path) => isSecondPage(new URL(path, 'http://x'))).length;
    expect(asked % 3 === 0 && asked >= 3).toBe(true);

    const healthy = await pullFrom(upstream.url, dataDir);
    expect(healthy.ok).toBe(true);
    expect(await differences(await openSnapshot(dataDir), await tinySnapshot())).toEqual([]);
  });

  it('sent once by an upstream that is not ours (other orders, page size, public base), is asked for again and the pull is whole', async () => {
    const dialect = await startDialectUpstream(upstream.url);
    let sent = false;
    // Its lists come in pages of 20: the first page after the first.
    const once = await startFaultProxy(dialect.url, ({ url }) =>
      url.pathname === TRANSACTIONS && Number(url.searchParams.get('offset') ?? 0) > 0 && !sent ? ((sent = true), { kind: 'body', text: deepPage }) : undefined,
    );
    proxies.push(once);
    try {
      const dataDir = await tempDir('hostile');
      const pulled = await pullFrom(once.url, dataDir);
      expect(sent).toBe(true);
      expect(pulled.ok).toBe(true);
      expect(pulled.log).toMatch(/nests arrays and objects deeper than 64 levels/);
      const rows = (await openSnapshot(dataDir)).manifest.datasets.rcn!.tables.transactions!.rows;
      expect(rows).toBe((await tinySnapshot()).manifest.datasets.rcn!.tables.transactions!.rows);
    } finally {
      await dialect.close();
    }
  });

  it('sent once, is asked for again and the pull goes on', async () => {
    let sent = false;
    const once = await proxy((url) => (isSecondPage(url) && !sent ? ((sent = true), { kind: 'body', text: deepPage }) : undefined));
    const pulled = await pullFrom(once.url, await tempDir('hostile'));
    expect(pulled.ok).toBe(true);
    expect(pulled.retries).toBeGreaterThanOrEqual(1);
  });
});

describe('an answer without end', () => {
  it('is cut off at the largest answer read, retried, with the process never holding more', async () => {
    let sent = false;
    const huge = await proxy((url) => (isSecondPage(url) && !sent ? ((sent = true), { kind: 'huge', bytes: 1024 * 1024 * 1024 }) : undefined));
    const before = process.memoryUsage().rss;
    const pulled = await pullFrom(huge.url, await tempDir('hostile'), { upstream: { maxAnswerBytes: 16 * 1024 * 1024 } });
    expect(pulled.ok).toBe(true);
    expect(pulled.log).toMatch(/the answer is larger than 16 MiB/);
    // Before: the whole body was held (a 1.5 GB answer took a pull to 4.7 GB).
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  });
});

describe('a journal line that cannot be read back', () => {
  it('is passed over and its unit fetched again, never wedging the pulls after it', async () => {
    const dataDir = await tempDir('hostile');
    // A pull that fails part-way keeps its journal to resume from (from the same address).
    let failing = true;
    const down = await proxy((url) => (failing && url.pathname === '/api/public/air-quality/stations' ? { kind: 'status', status: 500 } : undefined));
    expect((await pullFrom(down.url, dataDir, { upstream: { retries: 0 } })).ok).toBe(false);
    const runs = join(dataDir, '.pull');
    const journalFile = join(runs, ...(await findJournal(runs)));
    const lines = (await readFile(journalFile, 'utf8')).split('\n');
    const page = lines.findIndex((line) => line.includes(TRANSACTIONS));
    expect(page).toBeGreaterThanOrEqual(0);
    // As an older odsnap wrote it: the unit's answers replaced by one nested without end.
    const [key, meta] = lines[page]!.split('\t');
    lines[page] = `${key}\t${meta}\t{"answers":[${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}]}`;
    await writeFile(journalFile, lines.join('\n'));

    failing = false;
    const resumed = await pullFrom(down.url, dataDir);
    expect(resumed.ok).toBe(true);
    expect(resumed.log).toMatch(/journal-line-unreadable.*nested deeper than 64 levels.*fetched again/);
    expect(await differences(await openSnapshot(dataDir), await tinySnapshot())).toEqual([]);
  });
});

async function findJournal(dir: string, path: string[] = []): Promise<string[]> {
  for (const entry of await readdir(join(dir, ...path), { withFileTypes: true })) {
    if (entry.isFile() && entry.name === 'journal.ndjson') return [...path, entry.name];
    if (entry.isDirectory()) {
      const found = await findJournal(dir, [...path, entry.name]).catch(() => undefined);
      if (found) return found;
    }
  }
  throw new Error(`no journal under ${dir}`);
}

describe('a pull that fails', () => {
  it('ends as soon as the upstream looks down, not when the requests waiting to try again would have', async () => {
    // Three data sets never answer (the upstream is down once three requests timed out three times); the fourth says to come back in 20 s.
    const unwell = await proxy((url) =>
      url.pathname.startsWith('/api/public/air-quality') ? { kind: 'status', status: 503, retryAfter: '20' } : { kind: 'stall' },
    );
    const child = spawn(process.execPath, [cli, 'pull', '--from', unwell.url, '--data', await tempDir('hostile'), '--retries', '2', '--timeout', '1'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const started = performance.now();
    let said: number | undefined;
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (said === undefined && /pull failed/.test(stderr)) said = performance.now();
    });
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(1);
    expect(stderr).toMatch(/looks down/);
    expect(said).toBeDefined();
    // Before: the 20 s wait ran out first, for a request bound to fail.
    expect(said! - started).toBeLessThan(15_000);
    expect(performance.now() - said!).toBeLessThan(3_000);
  }, 60_000);
});
