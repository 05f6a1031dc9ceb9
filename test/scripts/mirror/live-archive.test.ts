import { appendFile, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceleratedClock } from '../../../core/clock.ts';
import { openSnapshot, tableFiles, tableSource } from '../../../core/snapshot/read.ts';
import { datasets } from '../../../datasets/index.ts';
import { askedAt, capturedAt, LiveArchive } from '../../../scripts/mirror/live-archive.ts';
import { captureFeed, liveFeedsOf } from '../../../scripts/mirror/live-feeds.ts';
import { pullFrom, tempDir } from '../../fixtures/pull.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';
import { withDatabase } from '../../fixtures/tiny.ts';

const citybike = datasets.find((d) => d.name === 'citybike')!;

/** Captures of each distinct time in a table of the current snapshot, and its rows. */
async function capturesIn(dataDir: string, table: string) {
  const snapshot = await openSnapshot(dataDir);
  return withDatabase(async (db) => {
    const [row] = await db.rows<{ times: number; rows: number }>(
      `SELECT count(DISTINCT captured_at)::INT AS times, count(*)::INT AS rows FROM ${tableSource(tableFiles(snapshot, 'citybike', table))}`,
    );
    return row!;
  });
}

describe('the live archive of a long-running mirror', () => {
  let upstream: TestServer;
  let dataDir: string;
  let archive: LiveArchive;
  // Three captures a minute apart on a clock that runs an hour a second.
  const clock = acceleratedClock(Date.parse('2026-11-01T10:00:00Z'), 3_600);
  const feed = liveFeedsOf(datasets).find((f) => f.path === '/api/public/citybike/live')!;
  let bikes: number;
  /** The clock when each capture was started. */
  const started: number[] = [];

  beforeAll(async () => {
    upstream = await startTestServer();
    dataDir = await tempDir('live-archive');
    archive = new LiveArchive(dataDir);
    bikes = (await upstream.json('/api/public/citybike/live')).bikes.length;
  });
  afterAll(async () => {
    archive?.close();
    await upstream?.close();
  });

  it('finds the live feeds by what their crawl steps capture, naming no data set', () => {
    expect(liveFeedsOf(datasets).map((f) => f.path)).toEqual(['/api/public/citybike/live', '/api/public/air-quality/live']);
  });

  it('keeps each capture in the journal of its hour, as the upstream wrote it', async () => {
    const options = { upstreamUrl: upstream.url, archive, clock, timeoutMs: 5_000 };
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      started.push(clock.now());
      const capture = await captureFeed(feed, options);
      expect(capture).toMatchObject({ ok: true, records: expect.any(Number) });
      if (capture.ok) times.push(capture.at);
      await clock.sleepUntil(clock.now() + 60_000);
    }
    expect(await archive.lastCapture(feed.path)).toBe(times[2]);
    const entries = [];
    for await (const entry of archive.capturesAfter(citybike.name, -Infinity)) entries.push(entry);
    expect(entries.map((e) => e.key)).toEqual(times.map((t) => `${feed.path} at ${new Date(t).toISOString()}`));
    expect(JSON.parse(entries[0]!.texts![0]!)).toEqual(await upstream.json('/api/public/citybike/live'));
    // Three captures an hour of the clock apart or more span that many hour files.
    const days = await readdir(archive.dir);
    expect(days.filter((d) => /^\d{4}/.test(d)).length).toBeGreaterThan(0);
  });

  it('records when each capture was asked, which a restarted mirror reads back', async () => {
    const entries = [];
    for await (const entry of new LiveArchive(dataDir).capturesAfter(citybike.name, -Infinity)) entries.push(entry);
    expect(entries).toHaveLength(3);
    entries.forEach((entry, i) => {
      // Asked once the capture started, answered after: the clock runs an hour a second, so the two differ.
      expect(askedAt(entry)).toBeGreaterThanOrEqual(started[i]!);
      expect(askedAt(entry)).toBeLessThan(capturedAt(entry));
    });
  });

  it('reads captures archived before they recorded when they were asked', async () => {
    const [entry] = await archive.entriesIn((await archive.newestHourFile())!);
    const older = new LiveArchive(await tempDir('live-archive-older'));
    const at = capturedAt(entry!);
    await older.append({ ...entry!, batches: entry!.batches!.map(({ askedAt: _, ...batch }) => batch) }, at, feed.path);
    older.close();
    expect(await readFile((await older.newestHourFile())!, 'utf8')).not.toContain('askedAt');

    const read = [];
    for await (const e of older.capturesAfter(citybike.name, -Infinity)) read.push(e);
    expect(read.map((e) => [e.key, capturedAt(e), askedAt(e)])).toEqual([[entry!.key, at, undefined]]);
    expect(await older.lastCapture(feed.path)).toBe(at);
  });

  it("commits every capture into the next snapshot once, beside the pull's own", async () => {
    const first = await pullFrom(upstream.url, dataDir, { only: ['citybike'], captures: (d, after) => archive.capturesAfter(d.name, after) });
    expect(first.ok, first.failures.join('\n')).toBe(true);
    expect(first.log).toContain('live captures committed');
    expect(await capturesIn(dataDir, 'live_bikes')).toEqual({ times: 4, rows: 4 * bikes });

    const second = await pullFrom(upstream.url, dataDir, { only: ['citybike'], captures: (d, after) => archive.capturesAfter(d.name, after) });
    expect(second.ok, second.failures.join('\n')).toBe(true);
    expect(await capturesIn(dataDir, 'live_bikes')).toEqual({ times: 5, rows: 5 * bikes });
  });

  it('passes over a capture torn by a kill', async () => {
    const [day] = (await readdir(archive.dir))
      .filter((d) => /^\d{4}/.test(d))
      .sort()
      .reverse();
    const [hour] = (await readdir(join(archive.dir, day!))).sort().reverse();
    await appendFile(join(archive.dir, day!, hour!), '"/api/public/citybike/live at 2026-11-01T');
    const entries = [];
    for await (const entry of archive.capturesAfter(citybike.name, -Infinity)) entries.push(entry);
    expect(entries).toHaveLength(3);
  });

  it('drops the hours a snapshot holds, past the day it keeps, but never the hour being written', async () => {
    const hours = async () => (await readdir(archive.dir)).filter((d) => /^\d{4}/.test(d));
    expect(await archive.dropHoursBefore(Date.parse('2026-11-01T00:00:00Z'))).toBe(0);
    expect((await hours()).length).toBeGreaterThan(0);
    archive.close();
    expect(await archive.dropHoursBefore(Number.MAX_SAFE_INTEGER)).toBeGreaterThan(0);
    expect(await hours()).toEqual([]);
  });
});

describe('a capture and the gap it ends', () => {
  it('does what must precede a capture (recording the gap it ends) before the archive holds it, so a kill between them loses no minute', async () => {
    const upstream = await startTestServer();
    const archive = new LiveArchive(await tempDir('live-order'));
    const feed = liveFeedsOf(datasets).find((f) => f.path === '/api/public/air-quality/live')!;
    const clock = acceleratedClock(Date.parse('2026-11-01T10:00:00Z'), 60);
    try {
      const seen: { at: number; archived: number | undefined }[] = [];
      const beforeArchiving = async (at: number) => void seen.push({ at, archived: await archive.lastCapture(feed.path) });
      const capture = await captureFeed(feed, { upstreamUrl: upstream.url, archive, clock, timeoutMs: 5_000, beforeArchiving });
      expect(capture.ok).toBe(true);
      // Called once, with the capture's time, while the archive did not hold it yet; it holds it after.
      expect(seen).toEqual([{ at: capture.ok ? capture.at : -1, archived: undefined }]);
      expect(await archive.lastCapture(feed.path)).toBe(seen[0]!.at);
    } finally {
      archive.close();
      await upstream.close();
    }
  });
});
