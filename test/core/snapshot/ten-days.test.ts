import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../../core/calendar.ts';
import { withDatabase } from '../../fixtures/tiny.ts';
import { diffSnapshots } from '../../../core/snapshot/diff.ts';
import { readHistory } from '../../../core/snapshot/history.ts';
import { openSnapshot, type Snapshot } from '../../../core/snapshot/read.ts';
import { prune } from '../../../core/snapshot/retention.ts';
import { datasets } from '../../../datasets/index.ts';
import { defaultUntil } from '../../../datasets/vocabulary/sample.ts';
import { generateSample } from '../../../scripts/sample/generate.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseFeed } from '@rowanmanning/feed-parser';
import { changesOf } from '../../../core/table.ts';
import { CHANGES_INDEX, changesPath, feedPath } from '../../../core/published-tree.ts';
import { buildStatic } from '../../../scripts/static/build-static.ts';
import { diskBytes, expectedChanges, expectedRecords } from '../../fixtures/history.ts';
import { capturedTables, pullFrom, tempDir } from '../../fixtures/pull.ts';
import { startTestServer, type TestServer, untilServing } from '../../fixtures/server.ts';

/**
 * The tiny city grown a day at a time for ten days, pulled after each: the history a mirror keeps
 * of it, each day's diff against what the sample itself added, time travel to every day, and a
 * prune while the mirror is served.
 */

const DAYS = 10;
let upstream: TestServer;
let mirror: TestServer;
let mirrorDir: string;
/** The sample's state and the mirror's snapshot after each pull, day 0 first. */
const samples: Snapshot[] = [];
const pulled: Snapshot[] = [];
/** What the mirror answered while each snapshot was current, by path naming it. */
const answered = new Map<string, string>();
const paths = ['/api/public/bike-counter/counters', '/api/public/air-quality/stations', '/api/public/rcn/transactions?limit=2', '/api/public/citybike/seasons'];
const naming = (path: string, id: string) => `${path}${path.includes('?') ? '&' : '?'}snapshot=${id}`;

beforeAll(async () => {
  const upstreamDir = await tempDir('ten-days-upstream');
  mirrorDir = await tempDir('ten-days-mirror');
  for (let day = 0; day <= DAYS; day++) {
    const sample = await generateSample({ dataDir: upstreamDir, datasets, settings: { scale: 'tiny', seed: 1, until: addDays(defaultUntil, day - DAYS) } });
    samples.push(sample);
    if (day === 0) upstream = await startTestServer({ dataDir: upstreamDir, watch: true });
    else await untilServing(upstream, sample.id);
    const result = await pullFrom(upstream.url, mirrorDir);
    expect(result.ok, result.log).toBe(true);
    const snapshot = await openSnapshot(mirrorDir);
    pulled.push(snapshot);
    if (day === 0) mirror = await startTestServer({ dataDir: mirrorDir, watch: true });
    else await untilServing(mirror, snapshot.id);
    for (const path of paths) {
      const response = await mirror.fetch(naming(path, snapshot.id));
      expect(response.status, path).toBe(200);
      answered.set(naming(path, snapshot.id), await response.text());
    }
  }
}, 240_000);

afterAll(async () => {
  await mirror?.close();
  await upstream?.close();
});

describe('ten days of pulls', () => {
  it('leave eleven snapshots, oldest first, the last current, each day’s unchanged files shared', async () => {
    const history = await readHistory(mirrorDir);
    expect(history.snapshots.map((s) => s.id)).toEqual(pulled.map((s) => s.id));
    expect(history.snapshots.map((s) => s.current)).toEqual(pulled.map((_, i) => i === DAYS));
    for (const snapshot of history.snapshots) expect(snapshot.bytes.shared, snapshot.id).toBeGreaterThan(0);
  });

  it('diff each day against the day before as the sample itself changed', async () => {
    for (let day = 1; day <= DAYS; day++) {
      const diff = await withDatabase((db) => diffSnapshots(db, pulled[day - 1]!, pulled[day]!, datasets));
      for (const dataset of datasets) {
        const captured = capturedTables(dataset);
        for (const table of Object.keys(dataset.tables)) {
          // Live captures depend on when each pull ran, not on the city.
          if (captured.has(table)) continue;
          const found = diff.tables.find((t) => t.dataset === dataset.name && t.table === table)!;
          const expected = await expectedChanges(samples[day - 1]!, samples[day]!, dataset.name, table);
          expect({ added: found.added, removed: found.removed, changed: found.changed }, `day ${day}: ${dataset.name}/${table}`).toEqual(expected);
        }
      }
      // Every day adds readings.
      expect(diff.tables.find((t) => t.table === 'readings' && t.dataset === 'bike-counter')!.added, `day ${day}`).toBeGreaterThan(0);
    }
  });

  it('are each answered again, byte for byte, by naming them', async () => {
    for (const [path, body] of answered) {
      const response = await mirror.fetch(path);
      expect(response.headers.get('x-odsnap-snapshot'), path).toBe(new URL(path, mirror.url).searchParams.get('snapshot'));
      expect(await response.text(), path).toBe(body);
    }
  });

  it('are answered to two clients on two past snapshots at once without reopening either', async () => {
    const [a, b] = [pulled[2]!.id, pulled[5]!.id];
    const opened = () => mirror.logs.filter((line) => line.event === 'past-snapshot-opened' && (line.snapshot === a || line.snapshot === b)).length;
    const before = opened();
    const client = async (id: string) => {
      for (let i = 0; i < 20; i++) {
        const response = await mirror.fetch(naming(paths[0]!, id));
        expect(response.status).toBe(200);
        expect(await response.text()).toBe(answered.get(naming(paths[0]!, id)));
      }
    };
    await Promise.all([client(a), client(b)]);
    // Each opened at most once more (the last days' time travel may have left others open).
    expect(opened() - before).toBeLessThanOrEqual(2);
  });

  it('are published by the static tree: each day’s records and counts, linked to their files, and the register’s Atom feed', async () => {
    const out = join(await tempDir('ten-days-tree'), 'dist');
    await buildStatic({ dataDir: mirrorDir, out, datasets });
    const read = (path: string) => JSON.parse(readFileSync(join(out, path), 'utf8'));
    const index = read(CHANGES_INDEX);
    // Newest first; the first pull had nothing before it.
    expect(index.pulls.map((pull: { snapshot: string }) => pull.snapshot)).toEqual(
      pulled
        .slice(1)
        .map((s) => s.id)
        .reverse(),
    );
    expect(index.feeds).toEqual({ rcn: `/${feedPath('rcn')}` });
    const feedTitles: string[] = [];
    for (let day = DAYS; day >= 1; day--) {
      const published = read(changesPath(pulled[day]!.id));
      expect(published.previous.id).toBe(pulled[day - 1]!.id);
      for (const dataset of datasets) {
        const captured = capturedTables(dataset);
        for (const table of Object.values(dataset.tables)) {
          if (captured.has(table.name)) continue;
          const expected = await expectedRecords(samples[day - 1]!, samples[day]!, dataset.name, table.name);
          const found = published.datasets
            .find((d: { name: string }) => d.name === dataset.name)
            ?.tables.find((t: { table: string }) => t.table === table.name);
          const where = `day ${day}: ${dataset.name}/${table.name}`;
          expect({ added: found?.added ?? 0, changed: found?.changed ?? 0, removed: found?.removed ?? 0 }, where).toEqual({
            added: expected.added.length,
            changed: expected.changed.length,
            removed: expected.removed.length,
          });
          if (changesOf(table) === 'records') {
            const keys = (kind: 'added' | 'changed' | 'removed') => (found?.records[kind] ?? []).map((record: { key: string }) => record.key).sort();
            expect({ added: keys('added'), changed: keys('changed'), removed: keys('removed') }, where).toEqual({
              added: expected.added.sort(),
              changed: expected.changed.sort(),
              removed: expected.removed.sort(),
            });
            // Records still there link to their files in the tree.
            for (const record of [...(found?.records.added ?? []), ...(found?.records.changed ?? [])]) {
              if (!record.url) continue;
              const file = JSON.parse(readFileSync(join(out, decodeURIComponent(record.url)), 'utf8'));
              expect(Object.values(file).map(String), `${where}: ${record.url}`).toContain(record.key);
            }
          }
          if (changesOf(table) === 'days') {
            const total = (kind: 'added' | 'changed' | 'removed') => (found?.days ?? []).reduce((sum: number, d: Record<string, number>) => sum + d[kind]!, 0);
            expect({ added: total('added'), changed: total('changed'), removed: total('removed') }, where).toEqual({
              added: expected.added.length,
              changed: expected.changed.length,
              removed: expected.removed.length,
            });
          }
          if (dataset.feed?.table === table.name) {
            feedTitles.push(
              ...expected.changed.sort().map((key) => `Revised ${dataset.feed!.record.en} ${key}`),
              ...expected.added.sort().map((key) => `New ${dataset.feed!.record.en} ${key}`),
            );
          }
        }
      }
    }
    expect(feedTitles.length, 'the sample adds transactions in ten days').toBeGreaterThan(0);
    const feed = parseFeed(readFileSync(join(out, feedPath('rcn')), 'utf8'));
    expect(feed.meta.type).toBe('atom');
    expect(feed.items.map((item) => item.title)).toEqual(feedTitles);
    expect(new Set(feed.items.map((item) => item.id)).size).toBe(feedTitles.length);
    for (const item of feed.items) expect(item.url, item.title ?? '').toMatch(/^\/api\/public\/rcn\/transactions\/.+\.json$/);
  }, 120_000);

  it('are pruned to the last three (and the newest of the week) while served, freeing what du no longer counts', async () => {
    let serving = true;
    const failed: string[] = [];
    let answers = 0;
    const requests = (async () => {
      while (serving) {
        const response = await mirror.fetch(paths[answers % paths.length]!);
        if (response.status !== 200) failed.push(`${response.status} ${await response.text()}`);
        else await response.arrayBuffer();
        answers++;
      }
    })();
    const du = () => diskBytes(mirrorDir);
    const before = du();
    let kept = new Set<string>();
    try {
      // The mirror still has the snapshot it answered the last past request from open (day 9's, or whichever came last): in use, so kept.
      const result = await prune(mirrorDir, { last: 3, weekly: 1 });
      const inUse = result.decisions.filter((d) => d.kept.includes('in use')).map((d) => d.id);
      kept = new Set([...pulled.slice(-3).map((s) => s.id), ...inUse]);
      expect((await readHistory(mirrorDir)).snapshots.map((s) => s.id)).toEqual(pulled.map((s) => s.id).filter((id) => kept.has(id)));
      expect(result.removed).toEqual(pulled.map((s) => s.id).filter((id) => !kept.has(id)));
      expect(before - du()).toBe(result.freedBytes);
    } finally {
      serving = false;
      await requests;
    }
    expect(failed).toEqual([]);
    expect(answers).toBeGreaterThan(0);
    // The tree built now publishes the changes the kept snapshots recorded, gaps and all.
    const out = join(await tempDir('ten-days-pruned-tree'), 'dist');
    await buildStatic({ dataDir: mirrorDir, out, datasets });
    const index = JSON.parse(readFileSync(join(out, CHANGES_INDEX), 'utf8'));
    expect(index.pulls.map((pull: { snapshot: string; previous: string }) => [pull.snapshot, pull.previous])).toEqual(
      pulled
        .map((s, day) => [s.id, pulled[day - 1]?.id])
        .filter(([id], day) => day > 0 && kept.has(id!))
        .reverse(),
    );
    // A pruned snapshot is gone for time travel too, and the problem names those still held.
    const gone = pulled[0]!.id;
    const response = await mirror.fetch(naming('/api/public/bike-counter/counters', gone));
    expect(response.status).toBe(404);
    expect((await response.json()).nearest.length).toBeGreaterThan(0);
  });
});
