import { cp, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, utcDayOf } from '../../../core/calendar.ts';
import { defaultUntil } from '../../../datasets/vocabulary/sample.ts';
import { datasets } from '../../../datasets/index.ts';
import { OVERLAP_DAYS } from '../../../datasets/answers/crawling.ts';
import { generateSample } from '../../../scripts/sample/generate.ts';
import { openSnapshot, tableFiles, tableSource, type Snapshot } from '../../../core/snapshot/read.ts';
import { startFaultProxy, type FaultProxy } from '../../fixtures/fault-proxy.ts';
import { differences, pullFrom, tempDir } from '../../fixtures/pull.ts';
import { startTestServer, type TestServer, untilServing } from '../../fixtures/server.ts';
import { tinyDataDir, withDatabase } from '../../fixtures/tiny.ts';

/**
 * The sample city grows by a day upstream; a second pull fetches what is new and ends where a full
 * pull does. A day adds no deeds to the tiny city, so the upstream also revises one property's
 * price (in its list form and its detail) from the second pull on.
 */

const REVISED_PRICE = '123456.78';

let upstream: TestServer;
let counter: FaultProxy;
let before: Snapshot, grown: Snapshot;
let first: Snapshot, second: Snapshot, full: Snapshot;
let secondRequests: string[], fullRequests: string[];
let secondResult: Awaited<ReturnType<typeof pullFrom>>;
let resumed: Snapshot;
let failedAtFirst: Awaited<ReturnType<typeof pullFrom>>;

beforeAll(async () => {
  const upstreamDir = await tempDir('grow');
  await cp(tinyDataDir(), upstreamDir, { recursive: true, verbatimSymlinks: true });
  before = await openSnapshot(upstreamDir);
  upstream = await startTestServer({ dataDir: upstreamDir, watch: true });
  const revised = (await upstream.json('/api/public/rcn/properties?limit=1')).items[0].propertyGmlId as string;
  let revising = false;
  /** A data set the upstream answers 503 for: the second pull of a copy fails there, the rest journalled. */
  let failing: string | undefined;
  const revise = (property: { propertyGmlId: string; grossPrice: string }) =>
    property.propertyGmlId === revised ? { ...property, grossPrice: REVISED_PRICE } : property;
  counter = await startFaultProxy(upstream.url, ({ url }) => {
    if (failing && url.pathname.startsWith(failing)) return { kind: 'status', status: 503 };
    if (!revising) return undefined;
    if (url.pathname === '/api/public/rcn/properties') return { kind: 'rewrite', body: (page) => ({ ...page, items: page.items.map(revise) }) };
    if (url.pathname === `/api/public/rcn/properties/${revised}`) return { kind: 'rewrite', body: revise };
    return undefined;
  });

  const pulledDir = await tempDir('incremental');
  expect((await pullFrom(counter.url, pulledDir)).ok).toBe(true);
  first = await openSnapshot(pulledDir);
  const resumedDir = await tempDir('incremental-resumed');
  await cp(pulledDir, resumedDir, { recursive: true, verbatimSymlinks: true });

  grown = await generateSample({ dataDir: upstreamDir, datasets, settings: { scale: 'tiny', seed: 1, until: addDays(defaultUntil, 1) } });
  await untilServing(upstream, grown.id);

  revising = true;
  let mark = counter.requests.length;
  secondResult = await pullFrom(counter.url, pulledDir);
  secondRequests = counter.requests.slice(mark);
  second = await openSnapshot(pulledDir);

  // The same second pull, failing on one data set, then resumed: what a mirror does through an outage.
  failing = '/api/public/air-quality/';
  failedAtFirst = await pullFrom(counter.url, resumedDir, { upstream: { retries: 1 } });
  failing = undefined;
  expect((await pullFrom(counter.url, resumedDir)).ok).toBe(true);
  resumed = await openSnapshot(resumedDir);

  const fullDir = await tempDir('full');
  mark = counter.requests.length;
  expect((await pullFrom(counter.url, fullDir)).ok).toBe(true);
  fullRequests = counter.requests.slice(mark);
  full = await openSnapshot(fullDir);
}, 120_000);

afterAll(async () => {
  await counter.close();
  await upstream.close();
});

const query = (request: string) => new URL(request, 'http://x');

describe('pulling again after the upstream grew by a day', () => {
  it('ends with what a full pull gets, which is the grown city', async () => {
    expect(secondResult.failures).toEqual([]);
    expect(await differences(second, full)).toEqual([]);
    const properties = grown.manifest.datasets.rcn!.tables.properties!.rows;
    expect(await differences(grown, second)).toEqual([{ table: 'rcn/properties', rows: [properties, properties], onlyFirst: 1, onlySecond: 1 }]);
    expect(await differences(before, grown)).not.toEqual([]);
  });

  it('ends with what a full pull gets when it failed on one data set and was resumed', async () => {
    expect(failedAtFirst.ok).toBe(false);
    expect(failedAtFirst.failures.join()).toMatch(/air-quality/);
    expect(await differences(resumed, full)).toEqual([]);
  });

  it('asks far fewer requests than a full pull', () => {
    expect(secondRequests.length).toBeLessThan(fullRequests.length / 2);
  });

  it('asks each series only from shortly before where the previous pull left off', async () => {
    // Latest instant per series in the first pull, as the upstream's paths name them.
    const latest = await withDatabase(async (db) => {
      const marks = new Map<string, number>();
      const series = [
        ['bike-counter', 'readings', `'/api/public/bike-counter/counters/' || counter_id || '/readings'`],
        ['air-quality', 'readings', `'/api/public/air-quality/history/' || station_id || '/' || sensor_code`],
        ['citybike', 'rides', `'/api/public/citybike/rides'`],
      ] as const;
      for (const [dataset, table, path] of series) {
        const time = datasets.find((d) => d.name === dataset)!.tables[table]!.timeColumn!;
        const rows = await db.rows<{ path: string; latest: number }>(
          `SELECT ${path} AS path, CAST(epoch_ms(max(${time})) AS DOUBLE) AS latest FROM ${tableSource(tableFiles(first, dataset, table))} GROUP BY ALL`,
        );
        for (const row of rows) marks.set(row.path, row.latest);
      }
      return marks;
    });
    const windowed = secondRequests.map(query).filter((url) => url.searchParams.has('from'));
    expect(windowed.length).toBeGreaterThan(0);
    for (const url of windowed) {
      const mark = latest.get(url.pathname);
      if (mark === undefined) continue; // a series the first pull found empty
      expect(url.searchParams.get('from')! >= addDays(utcDayOf(mark), -OVERLAP_DAYS), `${url.pathname}${url.search}`).toBe(true);
    }
  });

  it('fetches the details of new or changed properties only', async () => {
    const changed = await withDatabase(async (db) => {
      const [a, b] = [before, grown].map((s) => tableSource(tableFiles(s, 'rcn', 'properties')));
      const rows = await db.rows<{ n: number }>(`SELECT count(*)::INT AS n FROM (SELECT * FROM ${b} EXCEPT SELECT * FROM ${a})`);
      return rows[0]!.n;
    });
    const details = secondRequests.filter((r) => /^\/api\/public\/rcn\/properties\/[^?]+/.test(r));
    expect(details.length).toBe(changed + 1);
    expect(fullRequests.filter((r) => /^\/api\/public\/rcn\/properties\/[^?]+/.test(r)).length).toBe(grown.manifest.datasets.rcn!.tables.properties!.rows);
  });

  it('links the Parquet files nothing touched instead of writing them again', async () => {
    const readings = (s: Snapshot) => s.manifest.datasets['air-quality']!.tables.readings!.files;
    let linked = 0;
    for (const file of readings(second)) {
      const earlier = readings(first).find((f) => f.path === file.path);
      if (!earlier) continue;
      const [now, then] = await Promise.all([stat(join(second.dir, file.path)), stat(join(first.dir, file.path))]);
      if (now.ino === then.ino) linked++;
      else expect(file.max! >= addDays(defaultUntil, -OVERLAP_DAYS - 1), file.path).toBe(true);
    }
    expect(linked).toBeGreaterThan(0);
  });
});
