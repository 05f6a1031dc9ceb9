import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../core/calendar.ts';
import { defaultUntil } from '../../datasets/vocabulary/sample.ts';
import { datasets } from '../../datasets/index.ts';
import { generateSample } from '../../scripts/sample/generate.ts';
import { startTestServer, type TestServer, untilServing } from '../fixtures/server.ts';
import { tinyDataDir } from '../fixtures/tiny.ts';

let dataDir: string;
let server: TestServer;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'odsnap-swap-'));
  await cp(tinyDataDir(), dataDir, { recursive: true, verbatimSymlinks: true });
  server = await startTestServer({ dataDir, watch: true });
});
afterAll(async () => {
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
});

/**
 * Answers that differ between the two snapshots: counters synchronise later, live readings move on,
 * the season grows. A counter by its id is an answer the server keeps ready (server/kept-answers.ts).
 */
const paths = [
  '/api/public/bike-counter/counters',
  '/api/public/bike-counter/counters/most-poniatowskiego',
  '/api/public/air-quality/live',
  '/api/public/citybike/seasons',
];

describe('hot swap', () => {
  it('moves to a new current snapshot under load with no failed or mixed answer and no restart', async () => {
    const oldId = server.host.current.id;
    const before = new Map<string, string>();
    for (const path of paths) before.set(path, await (await server.fetch(path)).text());

    const answers: { path: string; status: number; snapshot: string | null; body: string }[] = [];
    let running = true;
    const client = async () => {
      for (let i = 0; running; i++) {
        const path = paths[i % paths.length]!;
        const response = await server.fetch(path);
        answers.push({ path, status: response.status, snapshot: response.headers.get('x-odsnap-snapshot'), body: await response.text() });
      }
    };
    const clients = Array.from({ length: 6 }, client);
    // A request still running on the old snapshot keeps it open past the swap.
    const held = server.host.lease();

    const next = await generateSample({ dataDir, datasets, settings: { scale: 'tiny', seed: 1, until: addDays(defaultUntil, 1) } });
    await untilServing(server, next.id);
    // While the old one is open, the new one's pages read its stored table: the server never holds both in-memory copies.
    const rcn = datasets.find((dataset) => dataset.name === 'rcn')!;
    expect(server.host.current.tables.inMemory(rcn, 'transactions')).toMatch(/^stored\./);
    expect(server.logs.some((line) => line.event === 'pages-in-memory')).toBe(false);
    held.release();
    await new Promise((resolve) => setTimeout(resolve, 300));
    running = false;
    await Promise.all(clients);

    const after = new Map<string, string>();
    for (const path of paths) after.set(path, await (await server.fetch(path)).text());
    expect(next.id).not.toBe(oldId);
    expect(answers.length).toBeGreaterThan(50);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      const expected = answer.snapshot === oldId ? before.get(answer.path) : answer.snapshot === next.id ? after.get(answer.path) : undefined;
      expect(answer.body, `${answer.path} from ${answer.snapshot}`).toBe(expected);
    }
    expect(new Set(answers.map((a) => a.snapshot))).toEqual(new Set([oldId, next.id]));
    for (const path of paths) expect(after.get(path), path).not.toBe(before.get(path));
    expect(server.logs.filter((line) => line.event === 'snapshot')).toMatchObject([{ snapshot: next.id, previous: oldId }]);
    // The new snapshot's page filters go into memory once the old one is closed, never both at once.
    for (let waited = 0; !server.logs.some((line) => line.event === 'pages-in-memory') && waited < 10_000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(server.logs.filter((line) => line.event === 'pages-in-memory')).toEqual([{ event: 'pages-in-memory', snapshot: next.id }]);
    expect(server.host.current.tables.inMemory(rcn, 'transactions')).toMatch(/^kept\./);
  });
});

describe('a snapshot whose page filters are not in memory yet', () => {
  const filteredPages = [
    '/api/public/rcn/transactions?marketType=2&limit=5&offset=3',
    '/api/public/rcn/transactions?documentDateFrom=2025-01-01&grossPriceFrom=300000.005&limit=7',
    '/api/public/rcn/properties?address=a&limit=4&offset=2',
    '/api/public/rcn/properties?bbox=20.9,52.1,21.1,52.3&propertyType=1&limit=6',
    '/api/public/rcn/properties?landAreaFrom=100&limit=3',
  ];

  it('answers pages from the stored table exactly as from the copy it makes later', async () => {
    const later = await startTestServer({ inMemory: 'later', publicUrl: 'http://odsnap.test' });
    try {
      const rcn = datasets.find((dataset) => dataset.name === 'rcn')!;
      expect(later.host.current.tables.inMemory(rcn, 'transactions')).toMatch(/^stored\./);
      const reference = await startTestServer({ publicUrl: 'http://odsnap.test' });
      try {
        const expected = new Map<string, string>();
        for (const path of filteredPages) {
          expected.set(path, await (await reference.fetch(path)).text());
          expect(JSON.parse(expected.get(path)!).items.length, path).toBeGreaterThan(0);
          expect(await (await later.fetch(path)).text(), path).toBe(expected.get(path));
        }
        expect(await later.host.current.keepInMemory()).toBe(true);
        expect(later.host.current.tables.inMemory(rcn, 'transactions')).toMatch(/^kept\./);
        for (const path of filteredPages) expect(await (await later.fetch(path)).text(), path).toBe(expected.get(path));
      } finally {
        await reference.close();
      }
    } finally {
      await later.close();
    }
  });

  it('makes no page copies for a snapshot retired before it got to them', async () => {
    const later = await startTestServer({ inMemory: 'later' });
    const served = later.host.current;
    const rcn = datasets.find((dataset) => dataset.name === 'rcn')!;
    try {
      // As when a second new snapshot arrives before the first one's copies are made.
      served.retire();
      expect(await served.keepInMemory()).toBe(false);
      expect(served.tables.inMemory(rcn, 'transactions')).toMatch(/^stored\./);
    } finally {
      await later.close();
    }
  });
});
