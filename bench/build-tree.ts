/**
 * npm run bench:build [-- small|city] — `odsnap build` of the whole tree, beside a raw write of
 * the same bytes in the same run, and incremental rebuilds.
 *
 * 1. A full build into a fresh `dist` (in its own process, peak RSS sampled with the site's Astro and on its own): files/s and MB/s,
 *    variants (.gz, .br) included, Parquet downloads (hard links) left out.
 * 2. The reference: mkdir and write of the same paths, with the same sizes, into another
 *    directory, the bytes taken from memory (a pool read from the tree's own files): what writing
 *    the tree costs with nothing to compute. Written on writer threads, as the build writes (with
 *    fs/promises, 64 files in flight, it was slower in every run, 112–185 s against 86–99 s at
 *    city scale, and a second copy of the tree does not fit this disk). Reading all of it back
 *    first took 25 minutes at city scale once the disk cache had let it go, and what a file holds
 *    does not change what writing it costs. Ratio build ÷ raw (target ≥ 0.5×). Beside it, the
 *    tree's JSON compressed alone (its .gz and .br made on as many threads as the build's
 *    writers, nothing written): the work every build has besides writing, whatever it renders
 *    with. raw ÷ (raw + compression alone) is about the best ratio a build could reach here.
 * 3. The same snapshot again (the second tree is filled from the first, by hard links), then the
 *    city grown by a day (`--until` + 1, generated once into .cache/bench/<scale>-next) built
 *    over it: files written, linked and deleted, and the time (target < 10 s at city scale);
 *    beside it, a raw write of the files whose content changed (from the trees' lists of
 *    content hashes), variants included: what any rebuild has to write at the least. Then back
 *    a day, and the day more again with `--no-site`: the static tree's rebuild without the
 *    site's Astro build.
 *
 * Each step prints its line as it ends, and the results file is written again after each, so a run
 * stopped early keeps what it measured.
 *
 * Nothing is deleted until the end (see remove): on this machine's ext4, which has no journal,
 * writing right after a deletion of a million files takes twice as long.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { addDays } from '../core/calendar.ts';
import { defaultSeed, defaultUntil, type Scale } from '../datasets/vocabulary/sample.ts';
import { generatedOnce, sampleDataDir } from './city.ts';
import { MemoryPeaks } from './soak/memory.ts';
import { bytePool, changedFiles, compressAlone, filesOf, rawWrite, remove, settle, sized } from './tree-references.ts';

const scale = (process.argv[2] ?? 'city') as Scale;
const work = join(process.cwd(), '.cache', 'bench', `build-${scale}`);
const out = join(work, 'dist');

const grownDataDir = () =>
  generatedOnce(join(process.cwd(), '.cache', 'bench', `${scale}-next`), { scale, seed: defaultSeed, until: addDays(defaultUntil, 1) });

/** `odsnap build` in its own process; its peak RSS with the site's Astro and on its own, time and summary line. */
async function build(dataDir: string, ...options: string[]) {
  const started = performance.now();
  const child = spawn(process.execPath, ['bin/odsnap.js', 'build', '--data', dataDir, '--out', out, ...options], { stdio: ['ignore', 'ignore', 'pipe'] });
  const memory = new MemoryPeaks(child.pid!);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  memory.stop();
  if (code !== 0) throw new Error(`odsnap build failed (exit ${code}):\n${stderr.slice(-3000)}`);
  // The line that says what was written; warnings may follow it.
  const summary =
    stderr
      .trim()
      .split('\n')
      .findLast((line) => line.includes(' -> ')) ?? '';
  const count = (label: string) => Number(new RegExp(`([\\d,]+) ${label}`).exec(summary)?.[1]?.replaceAll(',', '') ?? NaN);
  return {
    seconds: (performance.now() - started) / 1000,
    peakMiB: memory.peak.all / 1024,
    ownPeakMiB: memory.peak.server / 1024,
    written: count('written'),
    linked: count('linked'),
    deleted: count('deleted'),
    summary,
  };
}

const dataDir = await sampleDataDir(scale);
if (existsSync(work)) {
  // A run stopped early leaves its trees: removed, then 5 minutes for ext4 to let their inodes go.
  console.error(`${scale}: removing ${work}, then waiting 5 minutes (see remove)…`);
  remove(work);
  settle();
  await new Promise((resolve) => setTimeout(resolve, 305_000));
}
await mkdir(work, { recursive: true });

const mb = (bytes: number, seconds: number) => (bytes / 1e6 / seconds).toFixed(1);
const fps = (count: number, seconds: number) => Math.round(count / seconds).toLocaleString('en');
const count = (n: number) => n.toLocaleString('en');
const resultsFile = join('bench/results', `build-${scale}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
const results: Record<string, unknown> = { scale };
/** Prints a step's table line at once and saves everything measured so far. */
async function record(step: string, figures: unknown, line: string) {
  results[step] = figures;
  console.log(line);
  await mkdir('bench/results', { recursive: true });
  await writeFile(resultsFile, JSON.stringify(results, null, 2));
}

console.error(`${scale}: full build…`);
settle();
const full = await build(dataDir);
console.error(`  ${full.summary}`);
const tree = await realpath(out);
// The Parquet downloads are hard links to the snapshot's files, not written: left out of both sides.
const files = await sized(
  tree,
  (await filesOf(tree)).filter((file) => !file.endsWith('.parquet')),
);
const treeBytes = files.reduce((n, f) => n + f.size, 0);
console.log(`| ${scale} | files | MB | seconds | files/s | MB/s | peak RSS MiB, all (odsnap's own) |`);
console.log('| --- | --- | --- | --- | --- | --- | --- |');
await record(
  'full',
  { ...full, files: files.length, bytes: treeBytes },
  `| odsnap build, full | ${count(files.length)} | ${(treeBytes / 1e6).toFixed(0)} | ${full.seconds.toFixed(1)} | ${fps(files.length, full.seconds)} | ${mb(treeBytes, full.seconds)} | ${Math.round(full.peakMiB)} (${Math.round(full.ownPeakMiB)}) |`,
);

console.error(`${scale}: compressing the tree's JSON alone…`);
const jsonFiles = files.filter((f) => !f.path.endsWith('.gz') && !f.path.endsWith('.br') && (f.path.endsWith('.json') || f.path.endsWith('.jsonld')));
const compression = await compressAlone(
  tree,
  jsonFiles.map((f) => f.path),
);
await record(
  'compression',
  { ...compression, files: jsonFiles.length },
  `| compression alone: .gz and .br of the ${count(jsonFiles.length)} JSON files, ${compression.threads} threads, nothing written | ${count(jsonFiles.length)} | ${(jsonFiles.reduce((n, f) => n + f.size, 0) / 1e6).toFixed(0)} | ${compression.seconds.toFixed(1)} | | | |`,
);

console.error(`${scale}: raw write of the same ${count(files.length)} files…`);
const pool = await bytePool(
  tree,
  files.map((f) => f.path),
  256 * 1024 * 1024,
);
const raw = await rawWrite(files, pool, join(work, 'raw'));
await record(
  'raw',
  raw,
  `| raw write of the same files and sizes, on writer threads | ${count(files.length)} | ${(raw.bytes / 1e6).toFixed(0)} | ${raw.seconds.toFixed(1)} | ${fps(files.length, raw.seconds)} | ${mb(raw.bytes, raw.seconds)} | |`,
);
await record('ratio', raw.seconds / full.seconds, `| build ÷ raw | | | | ${(raw.seconds / full.seconds).toFixed(2)}× | | |`);
const floor = raw.seconds / (raw.seconds + compression.seconds);
await record('floor', floor, `| raw ÷ (raw + compression alone): about the best a build could reach | | | | ${floor.toFixed(2)}× | | |`);

console.log('');
console.log("| rebuild | written | linked | deleted | seconds | peak RSS MiB, all (odsnap's own) |");
console.log('| --- | --- | --- | --- | --- | --- |');
console.error(`${scale}: the same snapshot again (fills the second tree)…`);
const again = await build(dataDir);
console.error(`  ${again.summary}`);
await record(
  'again',
  again,
  `| same snapshot (fills the second tree) | ${count(again.written)} | ${count(again.linked)} | ${count(again.deleted)} | ${again.seconds.toFixed(1)} | ${Math.round(again.peakMiB)} (${Math.round(again.ownPeakMiB)}) |`,
);
const grown = await grownDataDir();
console.error(`${scale}: grown by a day…`);
const inUse = await realpath(out);
const incremental = await build(grown);
console.error(`  ${incremental.summary}`);
await record(
  'incremental',
  incremental,
  `| after a day more | ${count(incremental.written)} | ${count(incremental.linked)} | ${count(incremental.deleted)} | ${incremental.seconds.toFixed(1)} | ${Math.round(incremental.peakMiB)} (${Math.round(incremental.ownPeakMiB)}) |`,
);
const changed = await sized(await realpath(out), await changedFiles(inUse, await realpath(out)));
const rawChanged = await rawWrite(changed, pool, join(work, 'raw-changed'));
await record(
  'changed',
  { files: changed.length, raw: rawChanged },
  `| raw write of the changed files (${count(changed.length)}, ${(rawChanged.bytes / 1e6).toFixed(0)} MB) | ${count(changed.length)} | | | ${rawChanged.seconds.toFixed(1)} | |`,
);
// The site is an Astro build of its own (about 9 s here on an idle machine, with no incremental
// mode): the static tree's own rebuild is measured without it too, the same day more again.
console.error(`${scale}: back a day, then a day more without the site…`);
const back = await build(dataDir);
await record(
  'back',
  back,
  `| back a day (the first snapshot again) | ${count(back.written)} | ${count(back.linked)} | ${count(back.deleted)} | ${back.seconds.toFixed(1)} | ${Math.round(back.peakMiB)} (${Math.round(back.ownPeakMiB)}) |`,
);
const treeOnly = await build(grown, '--no-site');
console.error(`  ${treeOnly.summary}`);
await record(
  'incrementalTreeOnly',
  treeOnly,
  `| after a day more, the tree alone (--no-site; the site's files deleted) | ${count(treeOnly.written)} | ${count(treeOnly.linked)} | ${count(treeOnly.deleted)} | ${treeOnly.seconds.toFixed(1)} | ${Math.round(treeOnly.peakMiB)} (${Math.round(treeOnly.ownPeakMiB)}) |`,
);
console.log('');
console.log('Files include the .gz and .br variants; the Parquet downloads (hard links to the snapshot) are left out of both sides.');
console.error(`${scale}: removing the trees…`);
remove(work);
