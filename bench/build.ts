/**
 * npm run bench:build [-- small|city] — `odsnap build` of the whole tree, beside a raw write of
 * the same bytes in the same run, and incremental rebuilds.
 *
 * 1. A full build into a fresh `dist` (in its own process, peak RSS sampled): files/s and MB/s,
 *    variants (.gz, .br) included, Parquet downloads (hard links) left out.
 * 2. The reference: every file of that tree read back into memory, batch by batch, and only the
 *    writing timed: mkdir and writeFile of the same paths and bytes into another directory, with
 *    the same concurrency the build uses. Ratio build ÷ raw (target ≥ 0.5×).
 * 3. The same snapshot again (the second tree is filled from the first, by hard links), then the
 *    city grown by a day (`--until` + 1, generated once into .cache/bench/<scale>-next) built
 *    over it: files written, linked and deleted, and the time (target < 10 s at city scale);
 *    beside it, a raw write of the files whose content changed (from the trees' lists of
 *    content hashes), variants included: what any rebuild has to write at the least.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { addDays } from '../datasets/core/calendar.ts';
import { defaultSeed, defaultUntil, type Scale } from '../datasets/core/sample.ts';
import { generatedOnce, sampleDataDir } from './city.ts';
import { watchPeakRss } from './processes.ts';

const scale = (process.argv[2] ?? 'city') as Scale;
const work = join(process.cwd(), '.cache', 'bench', `build-${scale}`);
const out = join(work, 'dist');

const grownDataDir = () => generatedOnce(join(process.cwd(), '.cache', 'bench', `${scale}-next`), { scale, seed: defaultSeed, until: addDays(defaultUntil, 1) });

/** `odsnap build` in its own process; its peak RSS, time and summary line. */
async function build(dataDir: string) {
  const started = performance.now();
  const child = spawn(process.execPath, ['bin/odsnap.js', 'build', '--data', dataDir, '--out', out], { stdio: ['ignore', 'ignore', 'pipe'] });
  const memory = watchPeakRss(child.pid!);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  memory.stop();
  if (code !== 0) throw new Error(`odsnap build failed (exit ${code}):\n${stderr.slice(-3000)}`);
  const summary = stderr.trim().split('\n').at(-1)!;
  const count = (label: string) => Number(new RegExp(`([\\d,]+) ${label}`).exec(summary)?.[1]?.replaceAll(',', '') ?? NaN);
  return { seconds: (performance.now() - started) / 1000, peakMiB: memory.peakKiB / 1024, written: count('written'), linked: count('linked'), deleted: count('deleted'), summary };
}

/** Every file of a tree, relative. */
async function filesOf(tree: string): Promise<string[]> {
  const entries = await readdir(tree, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(tree, join(e.parentPath, e.name)));
}

/** Writes the same files with the same bytes, timing only the writes; batches bound memory. */
async function rawWrite(tree: string, files: readonly string[], target: string) {
  removeTree(target);
  const made = new Map<string, Promise<unknown>>();
  let seconds = 0;
  let bytes = 0;
  for (let from = 0; from < files.length; ) {
    const batch: [string, Buffer][] = [];
    let batchBytes = 0;
    while (from < files.length && batchBytes < 256 * 1024 * 1024) {
      const content = await readFile(join(tree, files[from]!));
      batch.push([files[from]!, content]);
      batchBytes += content.length;
      from++;
    }
    const started = performance.now();
    const pending = new Set<Promise<void>>();
    for (const [path, content] of batch) {
      const task = (async () => {
        const dir = dirname(join(target, path));
        if (!made.has(dir)) made.set(dir, mkdir(dir, { recursive: true }));
        await made.get(dir);
        await writeFile(join(target, path), content);
      })().then(() => void pending.delete(task));
      pending.add(task);
      if (pending.size >= 64) await Promise.race(pending);
    }
    await Promise.all(pending);
    seconds += (performance.now() - started) / 1000;
    bytes += batchBytes;
  }
  return { seconds, bytes };
}

/** rm -rf: fs.rm holds the names of a city's million files in memory and took ten minutes. */
const removeTree = (dir: string) => void spawnSync('rm', ['-rf', dir]);

/** Files of tree `to` whose content tree `from` does not have at the same path (by the trees' saved lists of hashes), with their variants. */
async function changedFiles(from: string, to: string): Promise<string[]> {
  const hashes = async (tree: string) => (JSON.parse(await readFile(`${tree}.json`, 'utf8')) as { files: Record<string, string> }).files;
  const before = await hashes(from);
  const hashOf = (entry: string | undefined) => entry?.split('\t')[0];
  return Object.entries(await hashes(to))
    .filter(([path, entry]) => !path.endsWith('.parquet') && hashOf(before[path]) !== hashOf(entry))
    .flatMap(([path]) => (path.endsWith('.json') ? [path, `${path}.gz`, `${path}.br`] : [path]))
    .filter((path) => existsSync(join(to, path)));
}

const dataDir = await sampleDataDir(scale);
removeTree(work);
await mkdir(work, { recursive: true });

console.error(`${scale}: full build…`);
const full = await build(dataDir);
console.error(`  ${full.summary}`);
const tree = await realpath(out);
// The Parquet downloads are hard links to the snapshot's files, not written: left out of both sides.
const files = (await filesOf(tree)).filter((file) => !file.endsWith('.parquet'));
let treeBytes = 0;
for (const file of files) treeBytes += (await stat(join(tree, file))).size;
console.error(`${scale}: raw write of the same ${files.length.toLocaleString('en')} files…`);
const raw = await rawWrite(tree, files, join(work, 'raw'));
removeTree(join(work, 'raw'));

console.error(`${scale}: the same snapshot again (fills the second tree)…`);
const again = await build(dataDir);
console.error(`  ${again.summary}`);
const grown = await grownDataDir();
console.error(`${scale}: grown by a day…`);
const inUse = await realpath(out);
const incremental = await build(grown);
console.error(`  ${incremental.summary}`);
const changed = await changedFiles(inUse, await realpath(out));
const rawChanged = await rawWrite(await realpath(out), changed, join(work, 'raw'));
removeTree(join(work, 'raw'));

const mb = (bytes: number, seconds: number) => (bytes / 1e6 / seconds).toFixed(1);
const fps = (count: number, seconds: number) => Math.round(count / seconds).toLocaleString('en');
console.log(
  [
    `| ${scale} | files | MB | seconds | files/s | MB/s | peak RSS MiB |`,
    '| --- | --- | --- | --- | --- | --- | --- |',
    `| odsnap build, full | ${files.length.toLocaleString('en')} | ${(treeBytes / 1e6).toFixed(0)} | ${full.seconds.toFixed(1)} | ${fps(files.length, full.seconds)} | ${mb(treeBytes, full.seconds)} | ${Math.round(full.peakMiB)} |`,
    `| raw write of the same bytes | ${files.length.toLocaleString('en')} | ${(raw.bytes / 1e6).toFixed(0)} | ${raw.seconds.toFixed(1)} | ${fps(files.length, raw.seconds)} | ${mb(raw.bytes, raw.seconds)} | |`,
    `| build ÷ raw | | | | ${(raw.seconds / full.seconds).toFixed(2)}× | | |`,
    '',
    '| rebuild | written | linked | deleted | seconds | peak RSS MiB |',
    '| --- | --- | --- | --- | --- | --- |',
    `| same snapshot (fills the second tree) | ${again.written.toLocaleString('en')} | ${again.linked.toLocaleString('en')} | ${again.deleted.toLocaleString('en')} | ${again.seconds.toFixed(1)} | ${Math.round(again.peakMiB)} |`,
    `| after a day more | ${incremental.written.toLocaleString('en')} | ${incremental.linked.toLocaleString('en')} | ${incremental.deleted.toLocaleString('en')} | ${incremental.seconds.toFixed(1)} | ${Math.round(incremental.peakMiB)} |`,
    `| raw write of the changed files (${changed.length.toLocaleString('en')}, ${(rawChanged.bytes / 1e6).toFixed(0)} MB) | ${changed.length.toLocaleString('en')} | | | ${rawChanged.seconds.toFixed(1)} | |`,
    '',
    'Files include the .gz and .br variants; the Parquet downloads (hard links to the snapshot) are left out of both sides.',
  ].join('\n'),
);
await mkdir('bench/results', { recursive: true });
await writeFile(
  join('bench/results', `build-${scale}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
  JSON.stringify({ scale, files: files.length, bytes: treeBytes, full, raw, again, incremental, changed: { files: changed.length, raw: rawChanged } }, null, 2),
);
