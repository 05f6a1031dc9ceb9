/**
 * npm run bench:mirror — the mirror as it lives, for days of a clock that runs fast: a sample city
 * whose time moves (`odsnap sample --serve`), a proxy that fails on cue, `odsnap mirror` on the
 * city's clock, and `odsnap serve` over the mirror polled all along. Each day of the clock the
 * upstream is down for an hour (503), then answers 429 with Retry-After for a quarter of an hour,
 * and the mirror is killed with SIGKILL and started again ten minutes later.
 *
 * Reports: captures and gaps (minutes, why), minutes neither captured nor in a gap (must be 0),
 * register tables unlike the city's once a pull after its last midnight is current (must be none),
 * captures unlike what the city showed while they were asked (must be 0), pulls, failed polls
 * (must be 0), the mirror's RSS (its peak over each life, and the slope of a line through its
 * samples, MiB per day of the clock, and its least and most in each day), and disk: the data directory, its live archive and its
 * snapshots, per day of the clock.
 *
 * MIRROR_DAYS (default 3), MIRROR_SPEED (default 360: a minute a sixth of a second, a day four
 * minutes), MIRROR_SCALE (default tiny), MIRROR_KILLS (default 1: the daily kill; 0 lets one
 * mirror live the whole run, for a memory verdict over one life), MIRROR_FAULTS (default 1: the
 * daily outage and 429s; 0 for none, say to measure the bytes a day of captures takes at city
 * scale in a fraction of a day: MIRROR_DAYS may be one), MIRROR_KEEP (default last=24,daily=7: the
 * mirror's --keep; a larger one keeps every snapshot to look back at). Results in
 * bench/results/mirror.json; the mirror's log is kept beside its data directory.
 *
 * Each snapshot is also checked as it is published for a key held twice (must be none), and the
 * log for rows a pull wrote twice and kept once (said, so that their cause can be looked for).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clockFromEnvironment, clockSettingOf } from '../core/clock.ts';
import { openDatabase } from '../core/db/duckdb.ts';
import { readMirrorStatus } from '../core/mirror-status.ts';
import { openSnapshot, tableFiles, tableSource } from '../core/snapshot/read.ts';
import { datasets } from '../datasets/index.ts';
import type { Scale } from '../datasets/vocabulary/sample.ts';
import { askedAt, capturedAt, LiveArchive } from '../scripts/mirror/live-archive.ts';
import type { Entry } from '../scripts/pull/journal-line.ts';
import { LiveAnswers } from '../scripts/sample/live-answers.ts';
import { startFaultProxy, type Fault } from '../test/fixtures/fault-proxy.ts';
import { startMovingCity } from '../test/fixtures/moving-city.ts';
import { differences, keysHeldTwice } from '../test/fixtures/snapshot-differences.ts';

const DAYS = Number(process.env.MIRROR_DAYS ?? 3);
const SPEED = Number(process.env.MIRROR_SPEED ?? 360);
const SCALE = (process.env.MIRROR_SCALE ?? 'tiny') as Scale;
const KILLS = process.env.MIRROR_KILLS !== '0';
const FAULTS = process.env.MIRROR_FAULTS !== '0';
const KEEP = process.env.MIRROR_KEEP ?? 'last=24,daily=7';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const start = Date.parse('2025-10-01T22:00:00Z'); // a Warsaw midnight

const tempDir = (name: string) => mkdtemp(join(tmpdir(), `odsnap-${name}-`));
const cityDir = await tempDir('bench-city');
const dataDir = await tempDir('bench-mirror');
// Generated first: at city scale that takes many minutes, which the clock must not count.
execFileSync(process.execPath, ['bin/odsnap.js', 'sample', '--out', cityDir, '--scale', SCALE], { stdio: ['ignore', 'ignore', 'inherit'] });
const city = await startMovingCity(['--out', cityDir, '--scale', SCALE, '--port', '0'], clockSettingOf(start, SPEED, Date.now()));
const clock = clockFromEnvironment({ ODSNAP_CLOCK: city.clock });
console.error(`mirror: a ${SCALE} city at ${city.url}, its clock ${SPEED} times the wall's; ${DAYS} days to live`);
let fault: Fault | undefined;
const proxy = await startFaultProxy(city.url, () => fault);
const spawnOdsnap = (args: string[]) =>
  spawn(process.execPath, ['bin/odsnap.js', ...args], { env: { ...process.env, ODSNAP_CLOCK: city.clock }, stdio: ['ignore', 'ignore', 'pipe'] });
// The mirror's own log, every life of it, kept beside its data directory: what to read when a check fails.
const mirrorLog = createWriteStream(`${dataDir}.log`, { flags: 'a' });
console.error(`mirror: its data in ${dataDir}, its log in ${dataDir}.log`);

// The mirror's memory, sampled from /proc: each life's samples and its peak (VmHWM) at its end.
const lives: { samples: [number, number][]; peak: number }[] = [];
const rssOf = async (pid: number, field: string) =>
  Number(/\d+/.exec((await readFile(`/proc/${pid}/status`, 'utf8')).split('\n').find((l) => l.startsWith(field)) ?? '')?.[0] ?? 0) / 1024;
let mirror: ChildProcess;
const startMirror = () => {
  mirror = spawnOdsnap(['mirror', '--from', proxy.url, '--data', dataDir, '--pull-every', '1h', '--capture-every', '1m', '--jitter', '60', '--keep', KEEP]);
  mirror.stderr!.pipe(mirrorLog, { end: false });
  lives.push({ samples: [], peak: 0 });
};
const sampler = setInterval(async () => {
  const life = lives.at(-1);
  if (!life || mirror.exitCode !== null || !mirror.pid) return;
  life.samples.push([clock.now(), await rssOf(mirror.pid, 'VmRSS:').catch(() => 0)]);
  life.peak = Math.max(life.peak, await rssOf(mirror.pid, 'VmHWM:').catch(() => 0));
}, 500);

// Each snapshot the mirror publishes, checked as it comes: each that holds a key twice is said, the first kept with the one before it.
let lastChecked = '';
let firstHeldTwice: { snapshot: string; before: string; tables: Record<string, number> } | undefined;
const checker = setInterval(async () => {
  const snapshot = await openSnapshot(dataDir).catch(() => undefined);
  if (!snapshot || snapshot.id === lastChecked) return;
  const before = lastChecked;
  lastChecked = snapshot.id;
  const tables = await keysHeldTwice(snapshot).catch(() => ({}));
  if (Object.keys(tables).length) {
    firstHeldTwice ??= { snapshot: snapshot.id, before, tables };
    console.error(`mirror: snapshot ${snapshot.id} holds keys twice (${JSON.stringify(tables)}); the one before was ${before}`);
  }
}, 1_000);

startMirror();
const sleepUntil = (at: number) => clock.sleepUntil(at);
let polling = true;
while (!(await readMirrorStatus(dataDir))?.pulls.succeeded) await new Promise((resolve) => setTimeout(resolve, 500));
console.error(`mirror: first pull done at ${new Date(clock.now()).toISOString()} of the clock`);
// Served from its first snapshot on, as a user would start it.
const server = spawnOdsnap(['serve', '--data', dataDir, '--port', '0', '--quiet']);
let said = '';
server.stderr!.on('data', (chunk) => (said += chunk));
server.once('exit', (code) => {
  if (polling) throw new Error(`odsnap serve exited with code ${code}: ${said}`);
});
while (!/serving snapshot \S+ at (http:\/\/\S+)/.test(said)) await new Promise((resolve) => setTimeout(resolve, 250));
const served = /serving snapshot \S+ at (http:\/\/\S+)/.exec(said)![1]!;
console.error(`mirror: served at ${served}, polled every 200 ms`);
const polls = { ok: 0, failed: 0 };
const poller = (async () => {
  while (polling) {
    const answer = await fetch(`${served}/api/public/rcn/transactions?limit=5`).catch(() => undefined);
    if (answer?.status === 200) polls.ok++;
    else polls.failed++;
    await answer?.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
})();

for (let day = 0; day < DAYS; day++) {
  const midnight = start + day * DAY;
  if (FAULTS) {
    await sleepUntil(midnight + 10 * HOUR);
    fault = { kind: 'status', status: 503 };
    await sleepUntil(midnight + 11 * HOUR);
    fault = { kind: 'status', status: 429, retryAfter: '2' };
    await sleepUntil(midnight + 11.25 * HOUR);
    fault = undefined;
  }
  if (KILLS) {
    await sleepUntil(midnight + 16 * HOUR);
    mirror!.kill('SIGKILL');
    await new Promise((resolve) => mirror.once('exit', resolve));
    await sleepUntil(midnight + 16 * HOUR + 10 * MINUTE);
    startMirror();
  }
  if (FAULTS || KILLS) console.error(`mirror: day ${day + 1} of ${DAYS} lived (${polls.ok} polls answered, ${polls.failed} failed)`);
}
await sleepUntil(start + DAYS * DAY + HOUR);
// Every register change: once a snapshot begun an hour after the city's last midnight is current
// (the city may still be adding that day's rows just after it), it holds what the city's registers
// hold, live captures aside. Waited for in wall time: on a loaded machine a pull spans hours of the clock.
const lastMidnight = start + DAYS * DAY;
const waitedFrom = Date.now();
let comparedWith = '';
for (;;) {
  comparedWith = (await openSnapshot(dataDir)).manifest.createdAt;
  if (Date.parse(comparedWith) >= lastMidnight + HOUR || Date.now() - waitedFrom > 10 * 60_000) break;
  await new Promise((resolve) => setTimeout(resolve, 2_000));
}
const registerDifferences = await differences(await openSnapshot(cityDir), await openSnapshot(dataDir));
clearInterval(sampler);
clearInterval(checker);
polling = false;
await poller;
mirror!.kill('SIGKILL');
server.kill('SIGTERM');

// What the archive and the gaps say, minute by minute, against what the city showed.
const archive = new LiveArchive(dataDir);
const answers = new LiveAnswers(datasets, { scale: SCALE, seed: 1 });
const base = (text: string) => text.replaceAll(proxy.url, '{base}').replaceAll(city.url, '{base}');
const report: Record<string, unknown> = {
  days: DAYS,
  speed: SPEED,
  scale: SCALE,
  kills: KILLS,
  faults: FAULTS,
  registerDifferences,
  registersOfSnapshotBegun: comparedWith,
  keysHeldTwice: firstHeldTwice ?? null,
  repeatedKeys: (await readFile(`${dataDir}.log`, 'utf8')).split('\n').filter((line) => line.includes('repeated a key already written')),
};
/** The minutes the current snapshot holds captures of, in a live table. */
async function committedMinutes(dataset: string, table: string): Promise<number[]> {
  const snapshot = await openSnapshot(dataDir);
  const db = await openDatabase();
  try {
    const rows = await db.rows<{ minute: number }>(
      `SELECT DISTINCT (epoch_ms(captured_at) // ${MINUTE} * ${MINUTE})::DOUBLE AS minute FROM ${tableSource(tableFiles(snapshot, dataset, table))}`,
    );
    return rows.map((row) => Number(row.minute));
  } finally {
    db.close();
  }
}
/**
 * The minutes whose live answers a capture may hold: every minute from when it was asked to when
 * its answer came, so a slow answer is not counted as a wrong one. A capture archived before
 * captures recorded when they were asked gets its minute and the one before.
 */
function minutesAsked(entry: Entry, minute: number): number[] {
  const asked = askedAt(entry);
  if (asked === undefined) return [minute, minute - MINUTE];
  const minutes: number[] = [];
  for (let m = Math.floor(asked / MINUTE) * MINUTE; m <= minute; m += MINUTE) minutes.push(m);
  return minutes;
}
for (const feed of ['/api/public/citybike/live', '/api/public/air-quality/live']) {
  const dataset = feed.split('/')[3]!;
  const gaps = (await archive.gaps()).filter((gap) => gap.feed === feed);
  const covered = new Set<number>();
  for (const gap of gaps) for (let m = Date.parse(gap.from); m < Date.parse(gap.to); m += MINUTE) covered.add(m);
  let captures = 0;
  let unlike = 0;
  for await (const entry of archive.capturesAfter(dataset, -Infinity)) {
    if (!entry.key.startsWith(`${feed} at `)) continue;
    captures++;
    const minute = Math.floor(capturedAt(entry) / MINUTE) * MINUTE;
    covered.add(minute);
    const shown = await Promise.all(minutesAsked(entry, minute).map(async (m) => base(String(await answers.answer(m, feed, new URLSearchParams(), '{base}')))));
    if (!shown.includes(base(entry.texts![0]!))) unlike++;
  }
  // The archive keeps a day: older captures are in the snapshot's live tables, where they count too.
  for (const minute of await committedMinutes(dataset, feed === '/api/public/citybike/live' ? 'live_bikes' : 'live_stations')) covered.add(minute);
  const minutes = [...covered].sort((a, b) => a - b);
  let uncovered = 0;
  for (let m = minutes[0] ?? 0; m <= (minutes.at(-1) ?? -1); m += MINUTE) if (!covered.has(m)) uncovered++;
  const reasons: Record<string, number> = {};
  for (const gap of gaps) reasons[gap.reason.replace(/https?:\/\/\S+/g, 'URL')] = (reasons[gap.reason.replace(/https?:\/\/\S+/g, 'URL')] ?? 0) + gap.minutes;
  report[feed] = { captures, uncovered, unlike, gaps: gaps.length, gapMinutes: gaps.reduce((n, g) => n + g.minutes, 0), reasons };
}

/** The slope of a least-squares line through (clock ms, MiB), in MiB per day of the clock. */
const slope = (samples: [number, number][]) => {
  const n = samples.length;
  const mx = samples.reduce((s, [x]) => s + x, 0) / n;
  const my = samples.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = samples.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = samples.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return (sxy / sxx) * DAY;
};
/**
 * The least and the most RSS in each day of the clock: a leak raises the least (what the mirror
 * holds between pulls) day after day, where a line through every sample also reads where in a
 * day the pulls' peaks happened to fall.
 */
const byDay = (samples: [number, number][]) => {
  const days = new Map<number, { day: number; minMiB: number; maxMiB: number }>();
  for (const [at, mib] of samples) {
    if (!mib) continue; // not read: the process between lives
    const day = Math.floor((at - start) / DAY) + 1;
    const seen = days.get(day) ?? { day, minMiB: Infinity, maxMiB: 0 };
    days.set(day, { day, minMiB: Math.min(seen.minMiB, Math.round(mib)), maxMiB: Math.max(seen.maxMiB, Math.round(mib)) });
  }
  return [...days.values()].sort((a, b) => a.day - b.day);
};
// Each life's first hour is its start (a pull, DuckDB warming): the slope is of what follows.
const steady = lives.flatMap((life) => life.samples.filter(([at]) => at > life.samples[0]![0] + HOUR));
const status = await readMirrorStatus(dataDir);
report.pulls = status?.pulls;
report.polls = polls;
// Each life's own slope too: a line through lives that each start low reads the restarts, not a leak.
const ownSlopes = lives.map((life) => life.samples.filter(([at]) => at > life.samples[0]![0] + HOUR)).filter((samples) => samples.length > 10);
report.rss = {
  peakMiB: Math.round(Math.max(...lives.map((l) => l.peak))),
  slopeMiBPerDay: Number(slope(steady).toFixed(2)),
  lives: lives.length,
  slopeOfEachLifeMiBPerDay: ownSlopes.map((samples) => Number(slope(samples).toFixed(2))),
  samples: steady.length,
  byDay: byDay(steady),
};
/** Bytes on disk under a directory, hard links counted once (as `du` counts them). */
const duBytes = async (dir: string) => Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);
const disk = { dataDir: await duBytes(dataDir), live: await duBytes(join(dataDir, 'live')), snapshots: await duBytes(join(dataDir, 'snapshots')) };
// What the live archive adds to a snapshot per day of captures: the live tables' Parquet bytes
// over the days they cover (the registers' growth is the upstream's, not the mirror's).
const kept = await openSnapshot(dataDir);
let liveBytes = 0;
let liveFrom = Infinity;
let liveTo = -Infinity;
for (const dataset of datasets)
  for (const [name, table] of Object.entries(dataset.tables)) {
    if (!table.liveCaptures) continue;
    const entry = kept.manifest.datasets[dataset.name]?.tables[name];
    if (!entry) continue;
    liveBytes += entry.files.reduce((sum, file) => sum + file.bytes, 0);
    for (const minute of await committedMinutes(dataset.name, name)) [liveFrom, liveTo] = [Math.min(liveFrom, minute), Math.max(liveTo, minute)];
  }
const liveDays = (liveTo - liveFrom) / DAY;
report.disk = {
  ...disk,
  perDay: Math.round(disk.snapshots / DAYS),
  liveTables: { bytes: liveBytes, days: Number(liveDays.toFixed(2)), bytesPerDay: Math.round(liveBytes / liveDays) },
};
console.log(JSON.stringify(report, null, 2));
await mkdir('bench/results', { recursive: true });
await writeFile('bench/results/mirror.json', `${JSON.stringify(report, null, 2)}\n`);
await proxy.close();
await city.stop();
process.exit(0);
