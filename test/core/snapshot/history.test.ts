import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseFeed } from '@rowanmanning/feed-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readHistory } from '../../../core/snapshot/history.ts';
import { makeCurrent } from '../../../core/snapshot/write.ts';
import { readTable, type Snapshot } from '../../../core/snapshot/read.ts';
import { readChanges } from '../../../core/snapshot/changes.ts';
import { changesPath, feedPath } from '../../../core/published-tree.ts';
import { datasets } from '../../../datasets/index.ts';
import { buildStatic } from '../../../scripts/static/build-static.ts';
import type { FaultProxy } from '../../fixtures/fault-proxy.ts';
import { expectedRecords } from '../../fixtures/history.ts';
import { pullTwice, REVISED_PRICE } from '../../fixtures/pulled-twice.ts';
import { tempDir } from '../../fixtures/pull.ts';
import { startTestServer, type TestServer, untilServing } from '../../fixtures/server.ts';
import { withDatabase } from '../../fixtures/tiny.ts';
import { runOdsnap } from '../../fixtures/command.ts';

/**
 * A mirror pulled twice (test/fixtures/pulled-twice.ts): what `odsnap snapshots` says of it, what
 * the second pull recorded and the static tree publishes, checked against the sample's own two
 * states and the revisions the test made; the server answering either snapshot; and a pull that prunes.
 */

let upstream: TestServer;
let proxy: FaultProxy;
let mirrorDir: string;
let sampleBefore: Snapshot, sampleAfter: Snapshot;
let first: Snapshot, second: Snapshot;
let revised: string;
let revisedTransaction: { id: string; price: string };

beforeAll(async () => {
  ({ upstream, proxy, mirrorDir, sampleBefore, sampleAfter, first, second, revised, revisedTransaction } = await pullTwice());
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

describe('odsnap snapshots', () => {
  it('lists every snapshot oldest first, the current one marked, with rows per data set', async () => {
    const history = await readHistory(mirrorDir);
    expect(history.snapshots.map((s) => [s.id, s.current])).toEqual([
      [first.id, false],
      [second.id, true],
    ]);
    const rows = (snapshot: Snapshot) =>
      Object.fromEntries(Object.entries(snapshot.manifest.datasets).map(([name, d]) => [name, Object.values(d.tables).reduce((sum, t) => sum + t.rows, 0)]));
    expect(history.snapshots[1]!.rows).toEqual(rows(second));
    expect(history.snapshots[1]!.source).toBe(proxy.url);
    const { code, out } = await runOdsnap('snapshots', '--data', mirrorDir);
    expect(code).toBe(0);
    expect(out).toMatch(new RegExp(`^\\*\\s+${second.id}`, 'm'));
    expect(out).toMatch(new RegExp(`^\\s+${first.id}`, 'm'));
    expect(out).toMatch(/2 snapshots, .* on disk/);
  });

  it('counts a file the second pull hard-linked as shared, once on disk', async () => {
    const history = await readHistory(mirrorDir);
    const [older, newer] = history.snapshots;
    // What both hold is the files the two manifests list with the same sha256 (the pull links what it did not change).
    const unchanged = Object.entries(second.manifest.datasets).flatMap(([name, d]) =>
      Object.entries(d.tables).flatMap(([table, t]) =>
        t.files.filter((f) => first.manifest.datasets[name]!.tables[table]!.files.some((g) => g.path === f.path && g.sha256 === f.sha256)),
      ),
    );
    const linkedBytes = unchanged.reduce((sum, file) => sum + file.bytes, 0);
    expect(linkedBytes).toBeGreaterThan(0);
    // Each snapshot also holds its manifest, which the pulls wrote apart.
    expect(newer!.bytes.shared).toBe(linkedBytes);
    expect(older!.bytes.shared).toBe(linkedBytes);
    expect(history.bytes).toBe(older!.bytes.own + newer!.bytes.own + linkedBytes);
    expect((await runOdsnap('snapshots', '--data', mirrorDir, '--format', 'json')).out).toBe(`${JSON.stringify(history, null, 2)}\n`);
  });

  it('says when the directory holds none', async () => {
    const { code, out } = await runOdsnap('snapshots', '--data', await tempDir('history-empty'));
    expect(code).toBe(0);
    expect(out).toMatch(/holds no snapshot yet/);
  });
});

describe('what a pull changed', () => {
  it('is recorded in the snapshot it wrote: the revised prices old and new, rows that only moved not listed', async () => {
    expect(first.manifest.changes).toBeUndefined();
    const changes = (await readChanges(second))!;
    expect(changes.from).toEqual({ id: first.id, createdAt: first.manifest.createdAt });
    const table = (dataset: string, name: string) => changes.tables.find((t) => t.dataset === dataset && t.table === name)!;
    const priceBefore = (
      await withDatabase((db) => readTable(db, sampleBefore, datasets.find((d) => d.name === 'rcn')!, 'properties', `property_gml_id = '${revised}'`))
    )[0]!.gross_price;
    expect(table('rcn', 'properties').records!.changed).toEqual([{ key: revised, fields: { gross_price: { old: priceBefore, new: REVISED_PRICE } } }]);
    expect(table('rcn', 'transactions').records!.changed).toEqual([
      { key: revisedTransaction.id, fields: { gross_price: { old: revisedTransaction.price, new: REVISED_PRICE } } },
    ]);
    const expectedAdded = await expectedRecords(sampleBefore, sampleAfter, 'rcn', 'transactions');
    expect(table('rcn', 'transactions').records!.added).toEqual(expectedAdded.added.sort());
    expect(table('citybike', 'zones')).toMatchObject({ changed: 0, records: { added: [], changed: [], removed: [] } });
    expect(table('citybike', 'zones').reordered).toBeGreaterThan(0);
    // A series is counted by day, each day once, in order.
    const days = table('bike-counter', 'readings').days!;
    expect(days.reduce((sum, d) => sum + d.added, 0)).toBe(table('bike-counter', 'readings').added);
    expect(days.map((d) => d.day)).toEqual([...new Set(days.map((d) => d.day))].sort());
  });

  let out: string;
  beforeAll(async () => {
    out = join(await tempDir('history-tree'), 'dist');
    await buildStatic({ dataDir: mirrorDir, out, datasets, base: 'https://cdn.example.org/odsnap', site: true });
  }, 180_000);

  it('is published by the static tree, and revised and new transactions in a valid Atom feed', async () => {
    const published = JSON.parse(await readFile(join(out, changesPath(second.id)), 'utf8'));
    const transactions = published.datasets.find((d: { name: string }) => d.name === 'rcn').tables.find((t: { table: string }) => t.table === 'transactions');
    expect(transactions.records.changed).toEqual([
      {
        key: revisedTransaction.id,
        url: `https://cdn.example.org/odsnap/api/public/rcn/transactions/${encodeURIComponent(revisedTransaction.id)}.json`,
        fields: { gross_price: { old: revisedTransaction.price, new: REVISED_PRICE } },
      },
    ]);
    const feed = parseFeed(await readFile(join(out, feedPath('rcn')), 'utf8'));
    expect(feed.meta.type).toBe('atom');
    expect(feed.self).toBe(`https://cdn.example.org/odsnap/${feedPath('rcn')}`);
    const [first, ...rest] = feed.items;
    expect(first!.title).toBe(`Revised transaction ${revisedTransaction.id}`);
    expect(first!.description).toContain(`gross_price: ${revisedTransaction.price} → ${REVISED_PRICE}`);
    expect(first!.url).toBe(transactions.records.changed[0].url);
    expect(first!.updated?.toISOString()).toBe(second.manifest.createdAt);
    expect(rest.map((item) => item.title)).toEqual(transactions.records.added.map((record: { key: string }) => `New transaction ${record.key}`));
  });

  it('is shown on each data set’s page of the site, in both languages, with the feed announced', async () => {
    const page = await readFile(join(out, 'datasets/rcn/index.html'), 'utf8');
    const url = `https://cdn.example.org/odsnap/api/public/rcn/transactions/${encodeURIComponent(revisedTransaction.id)}.json`;
    expect(page).toContain(`<link rel="alternate" type="application/atom+xml" href="https://cdn.example.org/odsnap/${feedPath('rcn')}"`);
    expect(page).toContain(`data-pull="${second.id}"`);
    // The revised transaction first, linked, with its field's old and new value.
    const listed = page.slice(page.indexOf('aria-label="transactions"'));
    expect(listed.slice(0, listed.indexOf('</li>'))).toMatch(
      new RegExp(`data-change="changed".*href="${url.replace(/[.?]/g, '\\$&')}".*gross_price</code> ${revisedTransaction.price} → ${REVISED_PRICE}`, 's'),
    );
    expect(page).toContain(`href="https://cdn.example.org/odsnap/${changesPath(second.id)}"`);
    const polish = await readFile(join(out, 'pl/datasets/rcn/index.html'), 'utf8');
    expect(polish).toContain('Ostatnie zmiany');
    expect(polish).toContain(`data-pull="${second.id}"`);
    // Every data set's page has the section; the first pull's page would say none were recorded.
    for (const dataset of datasets) expect(await readFile(join(out, `datasets/${dataset.name}/index.html`), 'utf8'), dataset.name).toContain('data-changes');
  });
});

describe('time travel on the server', () => {
  /** Every endpoint that answers without a value in its path, and an item: what a client of the mirror asks. */
  const paths = () => [
    ...datasets.flatMap((dataset) => dataset.endpoints.filter((e) => !e.pathParams.length && e.parse({}).success).map((e) => e.fullPath)),
    `/api/public/rcn/properties/${revised}`,
    '/api/public/rcn/properties?limit=3',
  ];
  const moveCurrent = (id: string) => makeCurrent(mirrorDir, id);

  it('answers ?snapshot= for a past snapshot byte for byte as it answered the same request while that one was current, and says which one answered', async () => {
    await moveCurrent(first.id);
    const server = await startTestServer({ dataDir: mirrorDir, watch: true });
    try {
      // The same requests, then and now: naming the snapshot, so that the links in them (the next page) stay in it.
      const inFirst = (path: string) => `${path}${path.includes('?') ? '&' : '?'}snapshot=${first.id}`;
      const then = new Map<string, { body: string; snapshot: string | null }>();
      for (const path of paths().map(inFirst)) {
        const response = await server.fetch(path);
        expect(response.status, path).toBe(200);
        then.set(path, { body: await response.text(), snapshot: response.headers.get('x-odsnap-snapshot') });
      }
      expect(new Set([...then.values()].map((answer) => answer.snapshot))).toEqual(new Set([first.id]));
      expect(then.get(inFirst('/api/public/rcn/transactions'))!.body).toContain(`/api/public/rcn/transactions?snapshot=${first.id}&limit=100&offset=100"`);
      await moveCurrent(second.id);
      await untilServing(server, second.id);
      const now = await server.fetch(`/api/public/rcn/properties/${revised}`);
      expect(now.headers.get('x-odsnap-snapshot')).toBe(second.id);
      expect((await now.json()).grossPrice).toBe(REVISED_PRICE);
      for (const [path, answer] of then) {
        const past = await server.fetch(path);
        expect(past.status, path).toBe(200);
        expect(past.headers.get('x-odsnap-snapshot')).toBe(first.id);
        expect(await past.text(), path).toBe(answer.body);
      }
      const query = async (id?: string) => {
        const response = await server.fetch(`/api/sql?q=${encodeURIComponent('SELECT count(*) AS n FROM citybike_rides')}${id ? `&snapshot=${id}` : ''}`);
        return { n: (await response.json()).rows[0].n, snapshot: response.headers.get('x-odsnap-snapshot') };
      };
      expect(await query(first.id)).toEqual({ n: first.manifest.datasets.citybike!.tables.rides!.rows, snapshot: first.id });
      expect(await query()).toEqual({ n: second.manifest.datasets.citybike!.tables.rides!.rows, snapshot: second.id });
      // The index too: it names the snapshot asked for.
      expect((await server.json(`/api/public?snapshot=${first.id}`)).snapshot.id).toBe(first.id);
      expect((await server.json('/api/public')).snapshot.id).toBe(second.id);
    } finally {
      await server.close();
    }
  });

  it('answers an id it does not hold with a 404 problem naming the nearest it does', async () => {
    const server = await startTestServer({ dataDir: mirrorDir });
    try {
      const missing = `${first.id.slice(0, 9)}000000Z-00000000`;
      for (const path of ['/api/public/bike-counter/counters', '/api/sql?q=SELECT+1', '/api/public']) {
        const response = await server.fetch(`${path}${path.includes('?') ? '&' : '?'}snapshot=${missing}`);
        expect(response.status, path).toBe(404);
        expect(response.headers.get('content-type')).toBe('application/problem+json');
        const problem = await response.json();
        expect(problem).toMatchObject({ status: 404, param: 'snapshot', nearest: [first.id] });
        expect(problem.detail).toContain(`no snapshot "${missing}" here`);
      }
      // What cannot be a snapshot id is a bad parameter, not a missing snapshot.
      for (const id of ['../../etc', '']) {
        const response = await server.fetch(`/api/public/bike-counter/counters?snapshot=${encodeURIComponent(id)}`);
        expect(response.status, id).toBe(400);
        expect(await response.json()).toMatchObject({ param: 'snapshot' });
      }
    } finally {
      await server.close();
    }
  });
});

describe('odsnap pull --prune', () => {
  it('refuses a policy it cannot read, before pulling', async () => {
    const { code, err } = await runOdsnap('pull', '--from', proxy.url, '--data', mirrorDir, '--prune', 'last=2,hourly=3');
    expect(code).toBe(2);
    expect(err).toMatch(/--prune is a policy like last=7,weekly=4,monthly=12/);
    expect((await readHistory(mirrorDir)).snapshots).toHaveLength(2);
  });

  it('once the new snapshot is current, removes those the policy does not keep', async () => {
    const { code, err } = await runOdsnap('pull', '--from', proxy.url, '--data', mirrorDir, '--prune', 'last=1');
    expect(code, err).toBe(0);
    const history = await readHistory(mirrorDir);
    expect(history.snapshots).toHaveLength(1);
    expect(history.snapshots[0]!.current).toBe(true);
    expect(err).toContain(`pruned 2 snapshots of 3 (${first.id}, ${second.id}), freeing `);
  });
});
