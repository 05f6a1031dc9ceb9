import { cp, readdir, readFile, realpath } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, utcDayOf } from '../../../core/calendar.ts';
import type { RangeRule } from '../../../core/snapshot/manifest.ts';
import { INDEX } from '../../../core/published-tree.ts';
import { openSnapshot, tableFiles, tableSource, type Snapshot } from '../../../core/snapshot/read.ts';
import { instantMs } from '../../../core/zoned-time.ts';
import { writeSnapshot } from '../../../core/snapshot/write.ts';
import { citybike } from '../../../datasets/citybike/index.ts';
import { datasets } from '../../../datasets/index.ts';
import { defaultUntil } from '../../../datasets/vocabulary/sample.ts';
import { generateSample } from '../../../scripts/sample/generate.ts';
import { buildStatic } from '../../../scripts/static/build-static.ts';
import { staticContext } from '../../../scripts/static/static-context.ts';
import { HAND_PICKED, startDialectUpstream, type Dialect, type DialectUpstream } from '../../fixtures/dialect-upstream.ts';
import { startFaultProxy, type FaultProxy } from '../../fixtures/fault-proxy.ts';
import { pullFrom, tempDir } from '../../fixtures/pull.ts';
import { startTestServer, untilServing, type TestServer } from '../../fixtures/server.ts';
import { tinyDataDir, withDatabase } from '../../fixtures/tiny.ts';
import { expectFileAnswersAsServer, expectTreeAnswersAsServer, readJson } from '../../fixtures/tree-parity.ts';

/**
 * The static tree of a mirror of an upstream whose ranges of days are its own: a `to` that
 * includes the next midnight, rides chosen by overlap or by their end
 * (test/fixtures/dialect-upstream.ts). Each file holds what the mirror's server answers for its
 * request under the rule the pull learned: a ride across midnight in both days' files, or in its
 * end's; a reading at a month's first instant in the month before's file too. The upstream then
 * revises such a ride: a pull of it rebuilt over the tree makes each day's files it is in again,
 * and carries the rest. Then the upstream grows by a day: the rebuild extends the months that
 * went on, and makes what a build from nothing makes.
 */

const RIDES = '/api/public/citybike/rides';
const READINGS = '/api/public/bike-counter/counters/{counterId}/readings';
const HISTORY = '/api/public/air-quality/history/{stationId}/{sensorCode}';
/** The distance the upstream gives the revised ride in the second pull. */
const REVISED_DISTANCE = 987.65;

interface TreeFile {
  readonly url: string;
  readonly request: string;
}

/** Every file of an endpoint in a tree, as its listing gives them. */
async function filesOf(tree: string, endpoint: string): Promise<TreeFile[]> {
  const index = await readJson(tree, INDEX);
  const entry = index.datasets.flatMap((d: { endpoints: unknown[] }) => d.endpoints).find((e: { path: string }) => e.path === endpoint);
  const files: TreeFile[] = [];
  for (let page = entry.listing; page; ) {
    const listing = await readJson(tree, page);
    files.push(...listing.files);
    page = listing.next;
  }
  return files;
}

describe.each<[string, Partial<Dialect>, { rides: RangeRule; series: RangeRule; daysOf: (ride: { startedAt: number; finishedAt: number }) => string[] }]>([
  [
    'a `to` that includes the next midnight, rides by overlap',
    { toInclusive: true, ridesBy: 'overlap' },
    { rides: { by: 'overlap' }, series: { toInclusive: true }, daysOf: (ride) => [utcDayOf(ride.startedAt), utcDayOf(ride.finishedAt)] },
  ],
  ['rides by their end', { ridesBy: 'end' }, { rides: { by: 'end' }, series: { toInclusive: false }, daysOf: (ride) => [utcDayOf(ride.finishedAt)] }],
])('the static tree of a mirror whose upstream has %s', (_, differs, learned) => {
  let sample: TestServer;
  let upstream: DialectUpstream;
  let proxy: FaultProxy;
  let mirror: TestServer;
  let snapshot: Snapshot;
  let upstreamDir: string;
  let dataDir: string;
  let out: string;
  let tree: string;
  /** The last ride across a UTC midnight, which the upstream revises for the second pull. */
  let revised: { startedAt: number; finishedAt: number };
  let revising = false;

  const context = () => staticContext(datasets, '', (endpoint) => snapshot.manifest.endpoints?.[endpoint.fullPath]?.defaults ?? {});

  /** The days whose files hold the revised ride, and its distance in each. */
  async function revisedIn(files: readonly TreeFile[]): Promise<Record<string, number>> {
    const found: Record<string, number> = {};
    for (const file of files) {
      const ride = (await readJson(tree, file.url)).data.find(
        (r: { startedAt: string; finishedAt: string }) => instantMs(r.startedAt) === revised.startedAt && instantMs(r.finishedAt) === revised.finishedAt,
      );
      if (ride) found[file.url.split('/').at(-2)!] = ride.distance;
    }
    return found;
  }

  beforeAll(async () => {
    upstreamDir = await tempDir('range-rules-upstream');
    await cp(tinyDataDir(), upstreamDir, { recursive: true, verbatimSymlinks: true });
    sample = await startTestServer({ dataDir: upstreamDir, watch: true });
    upstream = await startDialectUpstream(sample.url, { ...HAND_PICKED, ...differs });
    proxy = await startFaultProxy(upstream.url, ({ url }) => {
      if (!revising || url.pathname !== RIDES) return undefined;
      const revise = (ride: { startedAt: string; finishedAt: string }) =>
        instantMs(ride.startedAt) === revised.startedAt && instantMs(ride.finishedAt) === revised.finishedAt ? { ...ride, distance: REVISED_DISTANCE } : ride;
      return { kind: 'rewrite', body: (page) => ({ ...page, data: page.data.map(revise) }) };
    });
    dataDir = await tempDir('range-rules-tree');
    const pulled = await pullFrom(proxy.url, dataDir);
    expect(pulled.failures).toEqual([]);
    snapshot = await openSnapshot(dataDir);
    mirror = await startTestServer({ dataDir });
    out = join(await tempDir('range-rules-tree-out'), 'dist');
    await buildStatic({ dataDir, out, datasets });
    tree = await realpath(out);
    const [ride] = await withDatabase((db) =>
      db.rows<{ s: number; f: number }>(
        `SELECT epoch_ms(started_at) AS s, epoch_ms(finished_at) AS f FROM ${tableSource(tableFiles(snapshot, 'citybike', 'rides'))}
         WHERE epoch_ms(started_at) // 86400000 < epoch_ms(finished_at) // 86400000 ORDER BY started_at DESC LIMIT 1`,
      ),
    );
    revised = { startedAt: Number(ride!.s), finishedAt: Number(ride!.f) };
  }, 300_000);

  afterAll(async () => {
    await mirror?.close();
    await proxy?.close();
    await upstream?.close();
    await sample?.close();
  });

  it('is made under the rule the pull learned, not the sample city’s', () => {
    const endpoints = snapshot.manifest.endpoints!;
    expect(endpoints[RIDES]!.range).toMatchObject(learned.rides);
    expect(endpoints[READINGS]!.range).toMatchObject(learned.series);
    expect(endpoints[HISTORY]!.range).toMatchObject(learned.series);
  });

  it('files a ride across midnight by the rule, and every rides file holds what the mirror answers', async () => {
    const files = await filesOf(tree, RIDES);
    expect(Object.keys(await revisedIn(files))).toEqual(learned.daysOf(revised));
    for (const file of files) await expectFileAnswersAsServer(tree, mirror, context(), file);
  });

  it('files a reading at the first instant of a month by the rule, and every month of a series holds what the mirror answers', async () => {
    for (const endpoint of [READINGS, HISTORY]) {
      const files = await filesOf(tree, endpoint);
      // The months of the first series (a counter, a station's sensor).
      const series = files[0]!.url.replace(/\/[^/]+\.json$/, '/');
      const months = files.filter((file) => file.url.startsWith(series));
      expect(months.length, endpoint).toBeGreaterThan(1);
      const month = months[0]!.url.slice(series.length, -'.json'.length);
      const next = Date.parse(`${addDays(`${month}-28`, 5).slice(0, 7)}-01T00:00:00Z`);
      const last = instantMs((await readJson(tree, months[0]!.url)).readings.at(-1).readAt);
      if (learned.series.toInclusive) expect(last, months[0]!.url).toBe(next);
      else expect(last, months[0]!.url).toBeLessThan(next);
      for (const file of months) await expectFileAnswersAsServer(tree, mirror, context(), file);
    }
  });

  it('answers, file by file, what the mirror answers for the request each file stands for', async () => {
    expect(await expectTreeAnswersAsServer(tree, mirror, context(), 4)).toBeGreaterThan(60);
  });

  it('makes again every day a revised ride across midnight is in, and carries the others', async () => {
    revising = true;
    dataDir = await tempDir('range-rules-tree-revised');
    const pulled = await pullFrom(proxy.url, dataDir);
    expect(pulled.failures).toEqual([]);
    const second = await openSnapshot(dataDir);
    // The same rule: one learned otherwise would make every file again.
    expect(second.manifest.endpoints).toEqual(snapshot.manifest.endpoints);
    snapshot = second;
    await mirror.close();
    mirror = await startTestServer({ dataDir });
    const rebuilt = await buildStatic({ dataDir, out, datasets });
    tree = await realpath(out);
    const files = await filesOf(tree, RIDES);
    expect(rebuilt.carried).toBeGreaterThan(files.length);
    expect(await revisedIn(files)).toEqual(Object.fromEntries(learned.daysOf(revised).map((day) => [day, REVISED_DISTANCE])));
    for (const file of files) await expectFileAnswersAsServer(tree, mirror, context(), file);
  });

  it('after the upstream grows by a day, makes what a build from nothing makes, and what the mirror answers', async () => {
    const grown = await generateSample({ dataDir: upstreamDir, datasets, settings: { scale: 'tiny', seed: 1, until: addDays(defaultUntil, 1) } });
    await untilServing(sample, grown.id);
    const pulled = await pullFrom(proxy.url, dataDir);
    expect(pulled.failures).toEqual([]);
    snapshot = await openSnapshot(dataDir);
    await mirror.close();
    mirror = await startTestServer({ dataDir });
    const rebuilt = await buildStatic({ dataDir, out, datasets });
    tree = await realpath(out);
    // The last month of each series went on: its file keeps its rows, the day's are added.
    expect(rebuilt.extended).toBeGreaterThan(0);
    const fresh = await jsonFilesOf(
      (await buildStatic({ dataDir, out: join(await tempDir('range-rules-tree-fresh'), 'dist'), datasets, seriesInOneScan: 0 })).tree,
    );
    const files = await jsonFilesOf(tree);
    expect([...files.keys()].sort()).toEqual([...fresh.keys()].sort());
    for (const [path, text] of fresh) expect(files.get(path), path).toBe(text);
    expect(await expectTreeAnswersAsServer(tree, mirror, context(), 4)).toBeGreaterThan(60);
    for (const file of (await filesOf(tree, RIDES)).slice(-6)) await expectFileAnswersAsServer(tree, mirror, context(), file);
  });
});

/** The JSON files of a tree (the API's), by path, with their text. */
async function jsonFilesOf(tree: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(join(tree, 'api'), { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.json'))
      files.set(relative(tree, join(entry.parentPath, entry.name)), await readFile(join(entry.parentPath, entry.name), 'utf8'));
  }
  return files;
}

/**
 * Rides of a few days around the turn of a month (so of two Parquet files), more than a page's
 * worth each day: many across midnight, some starting or ending exactly at it, one across two
 * midnights. Drawn from `seed`; `revise` changes the distance of the ride across two midnights.
 */
function* ridesOf(seed: number, revise = false): Generator<Record<string, unknown>> {
  let state = seed;
  const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const ride = (started: number, finished: number, distance = Math.round(next() * 2000) / 100) => ({
    season_year: 2025,
    started_zone_id: `Z${Math.floor(next() * 9)}`,
    finished_zone_id: next() < 0.1 ? null : `Z${Math.floor(next() * 9)}`,
    started_at: started,
    finished_at: finished,
    distance,
    average_speed: 12.5,
    rating: next() < 0.2 ? 1 + Math.floor(next() * 5) : null,
  });
  const rows: Record<string, unknown>[] = [];
  for (const day of SYNTHETIC_DAYS) {
    const start = Date.parse(`${day}T00:00:00Z`);
    // A ride at midnight, and one that ends at the next.
    rows.push(ride(start, start + 600_000), ride(start + 86_400_000 - 1_800_000, start + 86_400_000));
    for (let i = 0; i < 1100; i++) {
      const started = start + Math.floor(next() * 86_400) * 1000;
      rows.push(ride(started, started + (5 + Math.floor(next() * 175)) * 60_000));
    }
  }
  const first = Date.parse(`${SYNTHETIC_DAYS[0]}T20:00:00Z`);
  rows.push(ride(first, first + 2 * 86_400_000, revise ? REVISED_DISTANCE : 42));
  yield* rows;
}

const SYNTHETIC_DAYS = ['2025-05-30', '2025-05-31', '2025-06-01', '2025-06-02'];

describe.each<[RangeRule]>([
  [{}],
  [{ toInclusive: true }],
  [{ by: 'end' }],
  [{ by: 'end', toInclusive: true }],
  [{ by: 'overlap' }],
  [{ by: 'overlap', toInclusive: true }],
])('pages of rides of busy days, under the rule %j', (rule) => {
  const write = (dataDir: string, revise: boolean) =>
    writeSnapshot(
      {
        dataDir,
        datasets: [citybike],
        source: { kind: 'pull', upstream: 'http://upstream.invalid' },
        createdAt: Date.parse(revise ? '2025-06-04T00:00:00Z' : '2025-06-03T00:00:00Z'),
      },
      async (tables) => {
        for (const row of ridesOf(7, revise)) tables.citybike!.rides!.write(row);
        return { endpoints: { [RIDES]: { range: rule } } };
      },
    );

  it('hold what the server answers, before and after a ride across two midnights changes', async () => {
    const dataDir = await tempDir('range-rules-pages');
    const out = join(await tempDir('range-rules-pages-out'), 'dist');
    const context = staticContext([citybike], '');
    for (const revise of [false, true]) {
      await write(dataDir, revise);
      const built = await buildStatic({ dataDir, out, datasets: [citybike] });
      const tree = await realpath(out);
      const files = await filesOf(tree, RIDES);
      // Three pages a day at least, and the days rides run into.
      expect(files.length).toBeGreaterThanOrEqual(SYNTHETIC_DAYS.length * 3);
      if (revise) expect(built.carried).toBeGreaterThan(0);
      const server = await startTestServer({ dataDir, datasets: [citybike] });
      try {
        for (const file of files) await expectFileAnswersAsServer(tree, server, context, file);
      } finally {
        await server.close();
      }
    }
  });
});
