import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockSettingOf } from '../../core/clock.ts';
import { readMirrorStatus, type MirrorStatus } from '../../core/mirror-status.ts';
import { openSnapshot, tableFiles, tableSource } from '../../core/snapshot/read.ts';
import { LiveArchive } from '../../scripts/mirror/live-archive.ts';
import { startFaultProxy, type Fault, type FaultProxy } from '../fixtures/fault-proxy.ts';
import { tempDir } from '../fixtures/pull.ts';
import { startTestServer, type TestServer } from '../fixtures/server.ts';
import { withDatabase } from '../fixtures/tiny.ts';

/**
 * `odsnap mirror` as a real process on a clock sixty times the wall's (a minute a second), against
 * the tiny sample through a proxy that fails on cue: the upstream down for minutes, a burst of 429s,
 * the mirror killed with SIGKILL and started again. What the archive holds, the gaps it recorded and
 * the snapshots it committed are then checked against each other and the upstream.
 */

const SPEED = 60;
const MINUTE = 60_000;
const clockStart = Date.parse('2026-11-02T08:00:00Z');
const anchor = Date.now();

function startMirror(from: string, dataDir: string): { child: ChildProcess; log: () => string } {
  const child = spawn(
    process.execPath,
    ['bin/odsnap.js', 'mirror', '--from', from, '--data', dataDir, '--pull-every', '20m', '--capture-every', '1m', '--jitter', '0', '--keep', 'last=3'],
    { env: { ...process.env, ODSNAP_CLOCK: clockSettingOf(clockStart, SPEED, anchor) }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr!.on('data', (chunk) => (log += chunk));
  return { child, log: () => log };
}

async function until(what: string, check: (status: MirrorStatus | undefined) => boolean, dataDir: string, log: () => string, seconds = 120) {
  for (let waited = 0; waited < seconds * 1000; waited += 250) {
    if (check(await readMirrorStatus(dataDir))) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the mirror did not ${what} in ${seconds} s:\n${log().slice(-3000)}`);
}

const minuteOf = (iso: string | number) => Math.floor((typeof iso === 'number' ? iso : Date.parse(iso)) / MINUTE);

describe('odsnap mirror, living days in minutes', () => {
  let upstream: TestServer;
  let proxy: FaultProxy;
  let dataDir: string;
  let fault: Fault | undefined;
  let mirror: ReturnType<typeof startMirror> | undefined;
  const feed = '/api/public/citybike/live';

  beforeAll(async () => {
    upstream = await startTestServer();
    proxy = await startFaultProxy(upstream.url, () => fault);
    dataDir = await tempDir('mirror');
  });
  afterAll(async () => {
    mirror?.child.kill('SIGKILL');
    await proxy?.close();
    await upstream?.close();
  });

  it('pulls, captures every minute, records what an outage, 429s and a kill cost, and commits the rest', async () => {
    mirror = startMirror(proxy.url, dataDir);
    const first = mirror;
    await until('pull once', (s) => (s?.pulls.succeeded ?? 0) >= 1, dataDir, first.log);
    await until('capture', (s) => (s?.live[feed]?.captures ?? 0) >= 3, dataDir, first.log);

    // Down for five minutes of its clock, then a burst of 429s asking to wait.
    fault = { kind: 'status', status: 503 };
    await new Promise((resolve) => setTimeout(resolve, (5 * MINUTE) / SPEED));
    fault = { kind: 'status', status: 429, retryAfter: '1' };
    await new Promise((resolve) => setTimeout(resolve, (3 * MINUTE) / SPEED));
    fault = undefined;
    await until('record the outage as a gap', (s) => (s?.live[feed]?.gaps ?? []).some((g) => /503|429/.test(g.reason)), dataDir, first.log);

    // Killed mid-run, started again two minutes later.
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    await new Promise((resolve) => setTimeout(resolve, (2 * MINUTE) / SPEED));
    mirror = startMirror(proxy.url, dataDir);
    const second = mirror;
    await until(
      'record the time it was not running',
      (s) => (s?.live[feed]?.gaps ?? []).some((g) => g.reason === 'the mirror was not running'),
      dataDir,
      second.log,
    );
    const pullsBefore = (await readMirrorStatus(dataDir))!.pulls.succeeded;
    await until('pull after the restart', (s) => (s?.pulls.succeeded ?? 0) > pullsBefore, dataDir, second.log);
    second.child.kill('SIGKILL');
    await new Promise((resolve) => second.child.once('exit', resolve));

    // Every minute from the first capture to the last is in the archive or in a recorded gap.
    const archive = new LiveArchive(dataDir);
    const captures: { at: number; text: string }[] = [];
    for await (const entry of archive.capturesAfter('citybike', -Infinity)) {
      if (entry.key.startsWith(`${feed} at `)) captures.push({ at: entry.batches![0]!.fetchedAt, text: entry.texts![0]! });
    }
    const gaps = (await archive.gaps()).filter((gap) => gap.feed === feed);
    const covered = new Set(captures.map((c) => minuteOf(c.at)));
    for (const gap of gaps) for (let m = minuteOf(gap.from); m < minuteOf(gap.to); m++) covered.add(m);
    const missing: number[] = [];
    for (let m = minuteOf(captures[0]!.at); m <= minuteOf(captures.at(-1)!.at); m++) if (!covered.has(m)) missing.push(m);
    expect(missing.map((m) => new Date(m * MINUTE).toISOString())).toEqual([]);
    expect(gaps.map((g) => g.reason)).toEqual(expect.arrayContaining(['the mirror was not running']));

    // What was captured is what the upstream showed (the sample's live map stands still).
    const shown = await (await fetch(`${proxy.url}${feed}?version=v1`)).text();
    expect(captures.filter((c) => c.text !== shown).map((c) => new Date(c.at).toISOString())).toEqual([]);

    // Every capture up to the last snapshot's latest is in it, once.
    const snapshot = await openSnapshot(dataDir);
    const inSnapshot = await withDatabase((db) =>
      db.rows<{ at: number }>(`SELECT DISTINCT epoch_ms(captured_at)::DOUBLE AS at FROM ${tableSource(tableFiles(snapshot, 'citybike', 'live_bikes'))}`),
    );
    const committed = new Set(inSnapshot.map((row) => Number(row.at)));
    const latest = Math.max(...committed);
    const owed = captures.filter((c) => c.at <= latest && !committed.has(c.at));
    expect(owed.map((c) => new Date(c.at).toISOString())).toEqual([]);
  }, 600_000);
});
