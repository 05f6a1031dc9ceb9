import { spawn, type ChildProcess } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockFromEnvironment, clockSettingOf } from '../../core/clock.ts';
import { readMirrorStatus, type MirrorStatus } from '../../core/mirror-status.ts';
import { openSnapshot } from '../../core/snapshot/read.ts';
import { datasets } from '../../datasets/index.ts';
import { LiveArchive } from '../../scripts/mirror/live-archive.ts';
import { LiveAnswers } from '../../scripts/sample/live-answers.ts';
import { startFaultProxy, type Fault, type FaultProxy } from '../fixtures/fault-proxy.ts';
import { startMovingCity, type MovingCity } from '../fixtures/moving-city.ts';
import { differences, tempDir } from '../fixtures/pull.ts';

/**
 * The mirror as it lives, in minutes: a sample city whose clock runs sixty times the wall's (its
 * live map moves every minute, its registers gain a day at midnight), a proxy that fails on cue,
 * `odsnap mirror` on the city's clock, and `odsnap serve` over the mirror polled all along. The
 * city starts two and a half hours before a midnight; the mirror lives through an outage, a burst
 * of 429s, a SIGKILL, and the new day. Then the archive is held against what the city showed, minute
 * by minute, the last snapshot against the city's registers, and the polls against failure.
 */

const SPEED = 60;
const MINUTE = 60_000;
const wall = (minutes: number) => new Promise((resolve) => setTimeout(resolve, (minutes * MINUTE) / SPEED));
const start = Date.parse('2025-10-01T19:30:00Z'); // 21:30 in Warsaw; its midnight is 22:00 UTC.

function startProcess(args: string[], clock: string): { child: ChildProcess; log: () => string } {
  const child = spawn(process.execPath, ['bin/odsnap.js', ...args], { env: { ...process.env, ODSNAP_CLOCK: clock }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (chunk) => (log += chunk));
  child.stderr!.on('data', (chunk) => (log += chunk));
  return { child, log: () => log };
}

const killed = (child: ChildProcess) => new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));

async function until(what: string, check: () => Promise<boolean> | boolean, log: () => string, seconds = 240) {
  for (let waited = 0; waited < seconds * 1000; waited += 250) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`did not ${what} in ${seconds} s:\n${log().slice(-3000)}`);
}

describe('a mirror of a city whose time moves', () => {
  let city: MovingCity;
  let proxy: FaultProxy;
  let fault: Fault | undefined;
  let cityDir: string;
  let dataDir: string;
  const running: ChildProcess[] = [];

  beforeAll(async () => {
    cityDir = await tempDir('moving-city');
    dataDir = await tempDir('living-mirror');
    city = await startMovingCity(['--out', cityDir, '--scale', 'tiny', '--port', '0'], clockSettingOf(start, SPEED, Date.now()));
    proxy = await startFaultProxy(city.url, () => fault);
  }, 120_000);
  afterAll(async () => {
    for (const child of running) child.kill('SIGKILL');
    await proxy?.close();
    await city?.stop();
  });

  it('holds every minute the city showed but the gaps it recorded, every register day, and was served throughout', async () => {
    const clock = clockFromEnvironment({ ODSNAP_CLOCK: city.clock });
    const mirrorArgs = ['mirror', '--from', proxy.url, '--data', dataDir, '--pull-every', '30m', '--capture-every', '1m', '--jitter', '0', '--keep', 'last=4'];
    let mirror = startProcess(mirrorArgs, city.clock);
    running.push(mirror.child);
    const status = () => readMirrorStatus(dataDir);
    const pulled = async (n: number) => ((await status())?.pulls.succeeded ?? 0) >= n;
    await until('pull once', () => pulled(1), mirror.log);

    // A client polls the mirror's server from its first snapshot on; every answer must be a 200.
    const server = startProcess(['serve', '--data', dataDir, '--port', '0', '--quiet'], city.clock);
    running.push(server.child);
    await until('serve', () => /serving snapshot \S+ at (http:\/\/\S+)/.test(server.log()), server.log, 120);
    const served = /serving snapshot \S+ at (http:\/\/\S+)/.exec(server.log())![1]!;
    const polls = { ok: 0, failed: [] as string[] };
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const answer = await fetch(`${served}/api/public/citybike/live`).catch((error: Error) => error);
        if (answer instanceof Response && answer.status === 200) polls.ok++;
        else polls.failed.push(answer instanceof Response ? String(answer.status) : answer.message);
        if (answer instanceof Response) await answer.arrayBuffer();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();

    // Down for five minutes of the clock, then a burst of 429s, then a SIGKILL and two minutes away.
    fault = { kind: 'status', status: 503 };
    await wall(5);
    fault = { kind: 'status', status: 429, retryAfter: '1' };
    await wall(3);
    fault = undefined;
    await wall(3);
    mirror.child.kill('SIGKILL');
    await killed(mirror.child);
    await wall(2);
    mirror = startProcess(mirrorArgs, city.clock);
    running.push(mirror.child);

    // Past the city's midnight: once it has added the day's registers, until a pull started after that is current.
    await until(
      'add the new day',
      () => city.output().err.includes('registers until 2025-10-01'),
      () => city.output().err,
      400,
    );
    const added = clock.now();
    await until('pull the new day', async () => Date.parse((await openSnapshot(dataDir)).manifest.createdAt) > added, mirror.log, 300);
    mirror.child.kill('SIGKILL');
    await killed(mirror.child);
    polling = false;
    await poller;

    // 1. Every minute from the first capture to the last: a capture of what the city showed then, or a recorded gap.
    const archive = new LiveArchive(dataDir);
    const answers = new LiveAnswers(datasets, { scale: 'tiny', seed: 1 });
    const feed = '/api/public/citybike/live';
    const gaps = (await archive.gaps()).filter((gap) => gap.feed === feed);
    const covered = new Set<number>();
    for (const gap of gaps) for (let m = Date.parse(gap.from); m < Date.parse(gap.to); m += MINUTE) covered.add(m);
    const unlike: string[] = [];
    let captures = 0;
    const base = (text: string) => text.replaceAll(proxy.url, '{base}').replaceAll(city.url, '{base}');
    for await (const entry of archive.capturesAfter('citybike', -Infinity)) {
      if (!entry.key.startsWith(`${feed} at `)) continue;
      captures++;
      const at = entry.batches![0]!.fetchedAt;
      const minute = Math.floor(at / MINUTE) * MINUTE;
      covered.add(minute);
      // Stamped when its answer came: a request sent in the last instant of a minute may be answered in the next.
      const shown = await Promise.all(
        [minute, minute - MINUTE].map(async (m) => base((await answers.answer(m, feed, new URLSearchParams(), '{base}'))!.toString())),
      );
      if (!shown.includes(base(entry.texts![0]!))) unlike.push(new Date(at).toISOString());
    }
    expect(unlike).toEqual([]);
    const minutes = [...covered].sort((a, b) => a - b);
    const missing: string[] = [];
    for (let m = minutes[0]!; m <= minutes.at(-1)!; m += MINUTE) if (!covered.has(m)) missing.push(new Date(m).toISOString());
    expect(missing).toEqual([]);
    expect(captures).toBeGreaterThan(100);
    // The outage's gap says what the upstream answered (the 503s, not only the 429s that followed them);
    // the one across the kill, that the mirror stopped.
    expect(gaps.map((gap) => gap.reason)).toEqual(
      expect.arrayContaining([expect.stringMatching(/503/), expect.stringMatching(/mirror (was not running|stopped)/)]),
    );

    // 2. Every register change: the last snapshot holds what the city's registers hold, live captures aside.
    const mirrored = await openSnapshot(dataDir);
    expect(await differences(await openSnapshot(cityDir), mirrored)).toEqual([]);

    // 3. Served throughout, hot swaps and all; and no more snapshots than the policy keeps.
    expect(polls.failed).toEqual([]);
    expect(polls.ok).toBeGreaterThan(100);
    // The policy's four, and one the server may still be reading.
    expect((await readdir(join(dataDir, 'snapshots'))).length).toBeLessThanOrEqual(5);
    // Serving databases only of the current snapshot and one a server may still be reading, not of every snapshot kept.
    expect((await readdir(join(dataDir, 'cache'))).length).toBeLessThanOrEqual(2);
    const final = (await status()) as MirrorStatus;
    expect(final.pulls.succeeded).toBeGreaterThanOrEqual(3);
  }, 900_000);
});
