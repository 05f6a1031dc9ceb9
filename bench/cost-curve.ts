/**
 * npm run bench:cost [-- tiny small city region] — the cost curve: what each stage of odsnap's life
 * takes as the data grows, from a scale's sample to a server answering over it.
 *
 * For each scale, from nothing, each stage in its own process, one after the other:
 *   1. sample  `odsnap sample --scale S` writes the sample city;
 *   2. pull    `odsnap pull --from` a local `odsnap serve` of that sample (its own start-up, which
 *              builds its serving database, is not counted) into a fresh data directory;
 *   3. build   `odsnap build` writes the static tree, downloads and site of what was pulled;
 *   4. serve   `odsnap serve` starts on it with an empty cache directory, so its serving database
 *              is built in the stage, until a v1 page answers.
 * Records each stage's wall time and peak resident memory (its process and every process it starts,
 * sampled together every 100 ms; odsnap's own, the kernel's high-water mark), the most disk it
 * took at once (the file system's use, sampled every second: run nothing else that writes), the
 * snapshot's rows and Parquet bytes, and the tree's files and bytes. Targets: time grows at most
 * linearly with rows; no stage's peak grows with the data past city scale, each under 1.5 GB at
 * region scale.
 *
 * `npm run bench:cost -- --report FILE…` prints the table and chart of earlier results, joined.
 *
 * Works in .cache/bench/cost/<scale>/ (deleted first; BENCH_KEEP=1 leaves it after). Appends each
 * scale's figures to bench/results/cost-<time>.json as it ends, so a long run that fails late keeps
 * what it measured, and prints a markdown table at the end.
 *
 * `-- --resume` goes on with a scale whose run was stopped (a region's takes longer than a working
 * session here): stages it finished are kept as measured (`stages.json` in its directory), and a
 * stopped pull goes on from its journal as a pull does, its lives' seconds added and its peaks the
 * most of any life. Any other stage stopped half-way is run again whole, its stopped life not counted.
 */
import { spawn } from 'node:child_process';
import { statfsSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openSnapshot } from '../core/snapshot/read.ts';
import { scales, type Scale } from '../datasets/vocabulary/sample.ts';
import { freePort } from '../test/fixtures/loopback.ts';
import { stop } from './processes.ts';
import { MemoryPeaks } from './soak/memory.ts';
import { filesOf, sized } from './tree-references.ts';
import { render, stageNames, type ScaleFigures, type Stage } from './cost-report.ts';
const reporting = process.argv[2] === '--report';
const resuming = process.argv.includes('--resume');
const named = process.argv.slice(2).filter((arg) => arg !== '--resume');
const chosen = (named.length ? named : ['tiny', 'small', 'city', 'region']) as Scale[];
if (!reporting) for (const scale of chosen) if (!scales.includes(scale)) throw new Error(`unknown scale ${scale}: one of ${scales.join(', ')}`);

/** What a scale's run has measured so far, kept in its directory for `--resume`. */
interface Progress {
  readonly done: Stage[];
  /** The stage under way as last seen (every few seconds), with the lives before it. */
  running?: Stage;
  /**
   * The port the sample's upstream is served on for the pull. A pull goes on from its journal
   * only when asked of the same upstream, address included: a resumed pull must find it there.
   */
  upstreamPort?: number;
}

/**
 * `odsnap` with these arguments in its own process. Its stderr is read as it comes (a pipe left
 * unread fills and stalls the process writing to it), and the last of it kept to say why it failed.
 */
function odsnap(args: readonly string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['bin/odsnap.js', ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => void (stderr = (stderr + chunk).slice(-3000)));
  return { child, lastStderr: () => stderr };
}
type Odsnap = ReturnType<typeof odsnap>;

/** The most the file system under `dir` filled beyond what it held at the start, sampled every second. */
function watchDisk(dir: string): { most(): number; stop(): number } {
  const used = () => {
    const { blocks, bfree, bsize } = statfsSync(dir);
    return (blocks - bfree) * bsize;
  };
  const before = used();
  let most = before;
  const sampler = setInterval(() => void (most = Math.max(most, used())), 1000);
  return {
    most: () => most - before,
    stop() {
      clearInterval(sampler);
      return Math.max(most, used()) - before;
    },
  };
}

/**
 * Runs an odsnap command as a stage, timing it and sampling its processes' memory and the disk:
 * until it exits, or, given `ready`, until `ready` resolves, then stops it.
 */
async function timed(
  stage: Stage['stage'],
  args: readonly string[],
  {
    env = {},
    ready,
    earlier,
    seen,
  }: { env?: Record<string, string>; ready?: (run: Odsnap) => Promise<void>; earlier?: Stage; seen?: (so: Stage) => void } = {},
): Promise<Stage> {
  console.error(`  ${stage}: odsnap ${args.join(' ')}${earlier ? ` (going on after ${earlier.seconds.toFixed(0)} s)` : ''}`);
  const started = performance.now();
  const disk = watchDisk(process.cwd());
  const run = odsnap(args, env);
  const memory = new MemoryPeaks(run.child.pid!);
  const sofar = (peakDisk: number): Stage => ({
    stage,
    seconds: (earlier?.seconds ?? 0) + (performance.now() - started) / 1000,
    peakMiB: Math.max(earlier?.peakMiB ?? 0, memory.peak.all / 1024),
    ownPeakMiB: Math.max(earlier?.ownPeakMiB ?? 0, memory.peak.server / 1024),
    peakDiskMiB: Math.max(earlier?.peakDiskMiB ?? 0, peakDisk / 2 ** 20),
    ...(earlier ? { lives: (earlier.lives ?? 1) + 1 } : {}),
  });
  const watching = seen && setInterval(() => seen(sofar(disk.most())), 5000);
  try {
    if (ready) await ready(run);
    else {
      const code = await new Promise<number | null>((resolve) => run.child.on('exit', resolve));
      if (code !== 0) throw new Error(`odsnap ${args.join(' ')} failed (exit ${code}):\n${run.lastStderr()}`);
    }
    return report(sofar(disk.stop()));
  } finally {
    // Also when it failed: no sampler, and no process of the stage, outlives it.
    if (watching) clearInterval(watching);
    memory.stop();
    disk.stop();
    await stop(run.child);
  }
}

function report(stage: Stage): Stage {
  console.error(
    `  ${stage.stage}: ${stage.seconds.toFixed(1)} s${stage.lives ? ` over ${stage.lives} processes` : ''}, peak ${stage.peakMiB.toFixed(0)} MiB (odsnap's own process ${stage.ownPeakMiB.toFixed(0)}), disk up to ${stage.peakDiskMiB.toFixed(0)} MiB more`,
  );
  return stage;
}

/** Waits until `path` on `port` answers 200, or the process ends. */
async function answering(port: number, path: string, { child, lastStderr }: Odsnap): Promise<void> {
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`odsnap serve exited (${child.exitCode ?? child.signalCode}) before it answered:\n${lastStderr()}`);
    const status = await fetch(`http://127.0.0.1:${port}${path}`)
      .then((response) => response.body?.cancel().then(() => response.status))
      .catch(() => undefined);
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function measureScale(scale: Scale): Promise<ScaleFigures> {
  const dir = join(process.cwd(), '.cache', 'bench', 'cost', scale);
  const progressFile = join(dir, 'stages.json');
  const progress: Progress = resuming
    ? await readFile(progressFile, 'utf8').then(
        (text) => JSON.parse(text) as Progress,
        () => ({ done: [] }),
      )
    : { done: [] };
  if (!progress.done.length && !progress.running) await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const save = () => writeFileSync(progressFile, JSON.stringify(progress, null, 2));
  const [sampleDir, mirrorDir, tree] = [join(dir, 'sample'), join(dir, 'mirror'), join(dir, 'dist')];
  console.error(`${scale}:`);

  /** Runs a stage unless an earlier run finished it; only a pull goes on from a stopped life. */
  const stage = async (name: Stage['stage'], run: (earlier: Stage | undefined, seen: (so: Stage) => void) => Promise<Stage>) => {
    const finished = progress.done.find((done) => done.stage === name);
    if (finished) {
      console.error(`  ${name}: measured by an earlier run`);
      report(finished);
      return;
    }
    const earlier = name === 'pull' && progress.running?.stage === 'pull' ? progress.running : undefined;
    const measured = await run(earlier, (so) => {
      progress.running = so;
      save();
    });
    progress.done.push(measured);
    progress.running = undefined;
    save();
  };

  await stage('sample', async (_, seen) => {
    await rm(sampleDir, { recursive: true, force: true });
    return timed('sample', ['sample', '--scale', scale, '--out', sampleDir], { seen });
  });

  await stage('pull', async (earlier, seen) => {
    if (!earlier) await rm(mirrorDir, { recursive: true, force: true });
    if (!earlier || progress.upstreamPort === undefined) {
      progress.upstreamPort = await freePort();
      save();
    }
    const upstreamPort = progress.upstreamPort;
    const upstream = odsnap(['serve', '--data', sampleDir, '--port', String(upstreamPort), '--quiet'], { ODSNAP_CACHE_DIR: join(dir, 'upstream-cache') });
    try {
      await answering(upstreamPort, '/api/public/rcn/transactions?limit=1', upstream);
      return await timed('pull', ['pull', '--from', `http://127.0.0.1:${upstreamPort}`, '--data', mirrorDir], { earlier, seen });
    } finally {
      await stop(upstream.child);
    }
  });

  await stage('build', async (_, seen) => {
    await rm(tree, { recursive: true, force: true });
    return timed('build', ['build', '--data', mirrorDir, '--out', tree], { seen });
  });

  await stage('serve', async (_, seen) => {
    const servePort = await freePort();
    const cache = join(dir, 'serve-cache');
    await rm(cache, { recursive: true, force: true });
    // An empty cache directory: the serving database is built in the stage.
    return timed('serve', ['serve', '--data', mirrorDir, '--port', String(servePort), '--quiet'], {
      env: { ODSNAP_CACHE_DIR: cache },
      ready: (server) => answering(servePort, '/api/public/rcn/transactions?limit=1', server),
      seen,
    });
  });
  const stages = stageNames.map((name) => progress.done.find((done) => done.stage === name)!);

  const { manifest } = await openSnapshot(mirrorDir);
  const tables = Object.values(manifest.datasets).flatMap((dataset) => Object.values(dataset.tables));
  const treeFiles = await sized(tree, await filesOf(tree));
  const figures: ScaleFigures = {
    scale,
    rows: tables.reduce((sum, table) => sum + table.rows, 0),
    parquetBytes: tables.flatMap((table) => table.files).reduce((sum, file) => sum + file.bytes, 0),
    treeFiles: treeFiles.length,
    treeBytes: treeFiles.reduce((sum, file) => sum + file.size, 0),
    stages,
  };
  if (!process.env.BENCH_KEEP) await rm(dir, { recursive: true, force: true });
  return figures;
}

// `--report FILE…`: the table and chart of earlier runs' results, scales in the order given.
if (reporting) {
  const files = process.argv.slice(3);
  const measured: ScaleFigures[] = [];
  for (const file of files) measured.push(...(JSON.parse(await readFile(file, 'utf8')) as { measured: ScaleFigures[] }).measured);
  console.log(render(measured));
  process.exit(0);
}

const resultsFile = join('bench/results', `cost-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
await mkdir('bench/results', { recursive: true });
const measured: ScaleFigures[] = [];
for (const scale of chosen) {
  measured.push(await measureScale(scale));
  await writeFile(resultsFile, JSON.stringify({ node: process.version, measured }, null, 2));
}
console.log(`${render(measured)}\nResults: ${resultsFile}`);
