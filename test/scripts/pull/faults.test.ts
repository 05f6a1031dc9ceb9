import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { openSnapshot, type Snapshot } from '../../../core/snapshot/read.ts';
import { startFaultProxy, type Fault, type FaultProxy } from '../../fixtures/fault-proxy.ts';
import { capture } from '../../fixtures/output.ts';
import { differences, pullFrom, tempDir } from '../../fixtures/pull.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';
import { tinySnapshot } from '../../fixtures/tiny.ts';

/**
 * The upstream through a proxy that throttles, fails, stalls, resets, cuts bodies short, sends a
 * record that is not valid and moves a record to a page already read while the list is paged.
 */

const TRANSACTIONS = '/api/public/rcn/transactions';

let upstream: TestServer;
let proxy: FaultProxy;
let pulled: Awaited<ReturnType<typeof pullFrom>>;
let snapshot: Snapshot;
let dataDir: string;

/** Each fault kind this many times, each on a different URL, on the first request for it. */
const budget: Record<string, number> = { '429': 2, '500': 2, '503': 2, stall: 1, reset: 3, truncate: 3, malformed: 2 };
const faults: Record<string, Fault> = {
  '429': { kind: 'status', status: 429, retryAfter: '1' },
  '500': { kind: 'status', status: 500 },
  '503': { kind: 'status', status: 503 },
  stall: { kind: 'stall' },
  reset: { kind: 'reset' },
  truncate: { kind: 'truncate' },
  malformed: { kind: 'malformed' },
};

beforeAll(async () => {
  upstream = await startTestServer();
  // The transactions as the upstream lists them, and as it lists them once one has moved forward.
  const listed = (await upstream.json(`${TRANSACTIONS}?limit=100`)).items.concat((await upstream.json(`${TRANSACTIONS}?limit=100&offset=100`)).items);
  expect(listed.length).toBeGreaterThan(150);
  const moved = [...listed.slice(0, 50), listed[150], ...listed.slice(50, 150), ...listed.slice(151)];
  let firstPageServed = false;

  const seen = new Set<string>();
  const left = { ...budget };
  const kinds = Object.keys(budget);
  let distinct = 0;
  let invalidReadingUrl: string | undefined;
  let shortPages = 0;
  let notFoundOnce: string | undefined;
  proxy = await startFaultProxy(upstream.url, ({ url }) => {
    const key = url.pathname + url.search;
    if (url.pathname === TRANSACTIONS) {
      const offset = Number(url.searchParams.get('offset') ?? 0);
      const limit = Number(url.searchParams.get('limit') ?? 100);
      const list = firstPageServed ? moved : listed;
      // The list moves once the pull has read its first page (not its asks for the default page size and for a page of one).
      if (offset === 0 && url.searchParams.get('limit') === '100') firstPageServed = true;
      // Links as every answer through the proxy has them: naming the proxy (the list was read from the upstream itself).
      const items = JSON.parse(JSON.stringify(list.slice(offset, offset + limit)).replaceAll(upstream.url, proxy.url));
      return { kind: 'rewrite', body: () => ({ items, pagination: { limit, offset, total: list.length, next: null } }) };
    }
    if (url.pathname === '/api/public/citybike/bikes')
      return { kind: 'rewrite', body: (bikes: unknown[]) => [...bikes, { number: 42, note: 'not a bicycle' }] };
    if (/\/counters\/[^/]+\/readings$/.test(url.pathname) && (invalidReadingUrl ??= key) === key) {
      return {
        kind: 'rewrite',
        body: (answer: { readings: unknown[] }) => ({ ...answer, readings: [...answer.readings, { readAt: 'yesterday', value: 'many' }] }),
      };
    }
    // A property listed a moment ago whose details answer 404 once: asked again, not taken for deleted.
    if (url.pathname.startsWith('/api/public/rcn/properties/') && !notFoundOnce) {
      notFoundOnce = key;
      seen.add(key);
      return { kind: 'status', status: 404 };
    }
    // A page of rides that says there is more while it is short, or empty: once each, on its first request.
    if (url.pathname === '/api/public/citybike/rides' && !seen.has(key) && shortPages < 2) {
      seen.add(key);
      type Page = { data: unknown[]; hasNextPage: boolean };
      return shortPages++ === 0
        ? { kind: 'rewrite', body: (page: Page) => ({ ...page, data: page.data.slice(0, -1), hasNextPage: true }) }
        : { kind: 'rewrite', body: (page: Page) => ({ ...page, data: [], hasNextPage: true }) };
    }
    if (seen.has(key)) return undefined;
    seen.add(key);
    if (distinct++ % 3 !== 1) return undefined;
    const kind = kinds.find((k) => left[k]! > 0);
    if (!kind) return undefined;
    left[kind]!--;
    return faults[kind];
  });
  dataDir = await tempDir('faults');
  pulled = await pullFrom(proxy.url, dataDir, { upstream: { timeoutMs: 1_000, concurrency: 4 } });
  snapshot = await openSnapshot(dataDir);
}, 60_000);

afterAll(async () => {
  await proxy.close();
  await upstream.close();
});

describe('pulling through a faulty network and a changing upstream', () => {
  it('met every kind of fault, and retried', () => {
    expect(proxy.injected).toMatchObject({ status: 7, stall: 1, reset: 3, truncate: 3, malformed: 2 }); // status: 429, 500 and 503 twice each, and a 404
    expect(pulled.retries).toBeGreaterThanOrEqual(13);
    expect(pulled.log).toContain('"event":"retry"');
  });

  it('asks again for a page of rides that is short or empty while it says there is more', () => {
    expect(pulled.log).toMatch(/"event":"retry".*items on a page of 500 that has a next page/);
  });

  it('still gets exactly the rows of the sample', async () => {
    expect(pulled.failures).toEqual([]);
    expect(await differences(await tinySnapshot(), snapshot)).toEqual([]);
  });

  it('finds the record that moved to a page already read, by reading the list again', () => {
    expect(pulled.log).toMatch(/"event":"gap","dataset":"rcn","path":"\/transactions","round":1/);
  });

  it('quarantines the invalid records verbatim with the reason, counted in the manifest and the summary', async () => {
    expect(pulled.quarantined).toBe(2);
    expect(snapshot.manifest.quarantine).toMatchObject({ citybike: { records: 1 }, 'bike-counter': { records: 1 } });
    const bikes = (await readFile(join(snapshot.dir, snapshot.manifest.quarantine!.citybike!.path), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(bikes).toEqual([
      {
        resource: 'bike',
        url: expect.stringContaining('/api/public/citybike/bikes?version=v1'),
        reason: expect.stringContaining('number'),
        record: { number: 42, note: 'not a bicycle' },
      },
    ]);
  });
});

describe('an upstream that stays down', () => {
  it('fails with a clear error, exit code 1, and leaves the current snapshot as it was', async () => {
    const before = (await openSnapshot(dataDir)).id;
    const output = capture();
    const code = await main(['pull', '--from', 'http://127.0.0.1:9', '--data', dataDir, '--retries', '1', '--timeout', '2'], output);
    expect(code).toBe(1);
    expect(output.err()).toMatch(/pull failed/);
    expect(output.err()).toMatch(/looks down: 3 requests in a row failed \(last: ECONNREFUSED/);
    expect(output.err()).toMatch(/the current snapshot is unchanged; run the same command again to resume/);
    // The data sets' requests are shares of the total: none counted that was refused without being sent.
    const total = Number(/pull failed in [\d.]+s: (\d+) requests/.exec(output.err())![1]);
    const shares = [...output.err().matchAll(/^ {2}\S+ +(\d+) requests/gm)].map((match) => Number(match[1]));
    expect(shares).toHaveLength(4);
    expect(shares.reduce((sum, n) => sum + n, 0)).toBe(total);
    expect((await openSnapshot(dataDir)).id).toBe(before);
  });
});

describe('an upstream that ignores the page asked for', () => {
  it('fails the pull with the reason instead of paging forever, and leaves the current snapshot as it was', async () => {
    // Every page of a window is its first page, full, with a next page.
    const firstPages = new Map<string, unknown>();
    const repeating = await startFaultProxy(upstream.url, ({ url }) => {
      if (url.pathname !== '/api/public/citybike/rides') return undefined;
      const window = `${url.searchParams.get('from')}/${url.searchParams.get('to')}`;
      return {
        kind: 'rewrite',
        body: (page: { data: unknown[]; hasNextPage: boolean }) => {
          if (!firstPages.has(window) && page.data.length)
            firstPages.set(window, { ...page, data: Array.from({ length: 500 }, () => page.data[0]), hasNextPage: true });
          return firstPages.get(window) ?? page;
        },
      };
    });
    try {
      const before = (await openSnapshot(dataDir)).id;
      const output = capture();
      const code = await main(['pull', '--from', repeating.url, '--data', dataDir, '--datasets', 'citybike', '--retries', '0'], output);
      expect(code).toBe(1);
      expect(output.err()).toMatch(/page 2 starts with the row page 1 started with; the upstream does not page/);
      expect((await openSnapshot(dataDir)).id).toBe(before);
    } finally {
      await repeating.close();
    }
  }, 60_000);
});
