/**
 * npm run bench:pull [-- small|city] — a full pull from the local upstream, beside the upstream's
 * own capacity measured in the same run.
 *
 * The sample city is served by `odsnap serve` in its own process; `odsnap pull` crawls it in
 * another, into a fresh data directory, while this process samples the pull's peak RSS. The
 * upstream logs every request (path and query). Then the upstream is restarted, so it is in the
 * state the pull found it in (the server remembers lookups in small tables), and exactly the
 * requests the pull made (or an even sample of about 40,000 of them, BENCH_REPLAY) are replayed
 * against it, each once and in the pull's order, by autocannon over as many
 * connections as the pull used, with the same headers: that is what the upstream can serve of
 * this mix with no client work at all. Reports requests/s and records/s of the crawl, their ratio
 * to that capacity (target ≥ 0.8×), the time to write the snapshot, and the peak RSS (target
 * < 1 GiB at city scale).
 */
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { createReadStream } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import type { Scale } from '../datasets/vocabulary/sample.ts';
import { sampleDataDir } from './city.ts';
import { startServe, stop, watchPeakRss } from './processes.ts';

const PORT = 4392;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
/** Requests replayed at most: an even sample of a big crawl measures the same mix in less time. */
const REPLAY_AT_MOST = Number(process.env.BENCH_REPLAY ?? 40_000);
const scales = (process.argv.slice(2).length ? process.argv.slice(2) : ['small', 'city']) as Scale[];

async function startUpstream(dataDir: string, logFile: string) {
  return startServe(['--data', dataDir], PORT, openSync(logFile, 'w'));
}

/** Runs the pull in its own process, sampling its peak RSS; returns its timeline from its JSON log lines. */
async function runPull(dataDir: string) {
  const started = Date.now();
  const child = spawn(
    process.execPath,
    ['bin/odsnap.js', 'pull', '--from', `http://127.0.0.1:${PORT}`, '--data', dataDir, '--concurrency', String(CONCURRENCY)],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const memory = watchPeakRss(child.pid!);
  let stderr = '';
  let crawlPeakKiB = 0;
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk;
    // VmHWM when the build starts is the crawl's own peak.
    if (!crawlPeakKiB && stderr.includes('"event":"building the snapshot"')) crawlPeakKiB = memory.peakKiB;
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  memory.stop();
  if (code !== 0) throw new Error(`the pull failed (exit ${code}):\n${stderr.slice(-3000)}`);
  // The crawl runs from the pull's first event (after start-up) to "building the snapshot".
  const events = stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { time: string; event: string; dataset: string; requests: number; records: number });
  const at = (event: string) => Date.parse(events.find((e) => e.event === event)!.time);
  const last = new Map(events.filter((e) => e.event === 'progress').map((p) => [p.dataset, p]));
  return {
    startSeconds: (at('pulling') - started) / 1000,
    crawlSeconds: (at('building the snapshot') - at('pulling')) / 1000,
    buildSeconds: (Date.now() - at('building the snapshot')) / 1000,
    requests: [...last.values()].reduce((n, p) => n + p.requests, 0),
    records: [...last.values()].reduce((n, p) => n + p.records, 0),
    peakMiB: memory.peakKiB / 1024,
    crawlPeakMiB: crawlPeakKiB / 1024,
    summary: stderr.slice(stderr.lastIndexOf('\npulled in')).trim(),
  };
}

/** The API requests the upstream logged, in order. */
async function loggedRequests(logFile: string): Promise<string[]> {
  const paths: string[] = [];
  for await (const line of createInterface({ input: createReadStream(logFile), crlfDelay: Infinity })) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { path?: string; query?: string };
    if (entry.path?.startsWith('/api/public/')) paths.push(entry.query ? `${entry.path}?${entry.query}` : entry.path);
  }
  return paths;
}

/**
 * What the upstream serves of these requests, each once, in the order the pull made them (which
 * pages of a table close together, as a cache sees it), with nothing but autocannon on the other
 * side. A big crawl is sampled evenly (every k-th request). autocannon would send its whole
 * request list down every connection (each request `CONCURRENCY` times, mostly answered from
 * what the server remembers), so the connections take turns over the list instead.
 */
async function capacity(paths: readonly string[]) {
  const every = Math.ceil(paths.length / REPLAY_AT_MOST);
  const sample = paths.filter((_, i) => i % every === 0);
  const shares = Array.from({ length: CONCURRENCY }, (_, c) => sample.filter((_, i) => i % CONCURRENCY === c));
  const started = performance.now();
  const results = await Promise.all(
    shares.map((share) =>
      autocannon({
        url: `http://127.0.0.1:${PORT}`,
        connections: 1,
        amount: share.length,
        headers: { accept: 'application/json', 'accept-encoding': 'gzip' },
        requests: share.map((path) => ({ method: 'GET', path })),
      }),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  const sent = results.reduce((n, r) => n + r.requests.total, 0);
  return { reqPerSec: sent / seconds, sent, wanted: sample.length, seconds, errors: results.reduce((n, r) => n + r.errors + r.non2xx, 0) };
}

const rows: Record<string, unknown>[] = [];
for (const scale of scales) {
  const sampleDir = await sampleDataDir(scale);
  const pulledDir = join(process.cwd(), '.cache', 'bench', `pulled-${scale}`);
  await rm(pulledDir, { recursive: true, force: true });
  const logFile = join(process.cwd(), '.cache', 'bench', `upstream-${scale}.log`);
  console.error(`${scale}: upstream on :${PORT}, pulling with concurrency ${CONCURRENCY}…`);
  let upstream = await startUpstream(sampleDir, logFile);
  try {
    const pulled = await runPull(pulledDir);
    console.error(pulled.summary);
    await stop(upstream);
    const paths = await loggedRequests(logFile);
    console.error(
      `${scale}: restarting the upstream and replaying ${Math.ceil(paths.length / Math.ceil(paths.length / REPLAY_AT_MOST)).toLocaleString('en')} of the pull's ${paths.length.toLocaleString('en')} requests…`,
    );
    upstream = await startUpstream(sampleDir, `${logFile}.replay`);
    const upstreamCapacity = await capacity(paths);
    if (upstreamCapacity.sent !== upstreamCapacity.wanted) throw new Error(`the replay sent ${upstreamCapacity.sent} of ${upstreamCapacity.wanted} requests`);
    if (upstreamCapacity.errors) throw new Error(`${upstreamCapacity.errors} replayed requests failed`);
    const pullRate = pulled.requests / pulled.crawlSeconds;
    rows.push({
      scale,
      requests: pulled.requests,
      records: pulled.records,
      crawlSeconds: pulled.crawlSeconds,
      replayed: upstreamCapacity.sent,
      replaySeconds: upstreamCapacity.seconds,
      buildSeconds: pulled.buildSeconds,
      pullReqPerSec: pullRate,
      pullRecordsPerSec: pulled.records / pulled.crawlSeconds,
      upstreamReqPerSec: upstreamCapacity.reqPerSec,
      upstreamRecordsPerSec: (upstreamCapacity.reqPerSec * pulled.records) / pulled.requests,
      ratio: pullRate / upstreamCapacity.reqPerSec,
      peakMiB: pulled.peakMiB,
      crawlPeakMiB: pulled.crawlPeakMiB,
      errors: upstreamCapacity.errors,
    });
  } finally {
    await stop(upstream);
  }
}

const table = [
  `| scale | requests | records | crawl s | pull req/s | upstream req/s | ratio | pull records/s | upstream records/s | snapshot written in s | pull peak RSS MiB (crawl) |`,
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ...rows.map(
    (r: any) =>
      `| ${r.scale} | ${r.requests.toLocaleString('en')} | ${r.records.toLocaleString('en')} | ${r.crawlSeconds.toFixed(1)} | ${Math.round(r.pullReqPerSec)} | ${Math.round(r.upstreamReqPerSec)} | ${r.ratio.toFixed(2)}× | ` +
      `${Math.round(r.pullRecordsPerSec).toLocaleString('en')} | ${Math.round(r.upstreamRecordsPerSec).toLocaleString('en')} | ${r.buildSeconds.toFixed(1)} | ${Math.round(r.peakMiB)} (${Math.round(r.crawlPeakMiB)}) |`,
  ),
  '',
  `Concurrency ${CONCURRENCY} for both; upstream capacity is autocannon replaying the pull's own requests (at most about ${REPLAY_AT_MOST.toLocaleString('en')}, an even sample), each once in the pull's order, against a freshly started upstream; same headers, same machine.`,
].join('\n');
console.log(table);
await mkdir('bench/results', { recursive: true });
await writeFile(
  join('bench/results', `pull-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
  JSON.stringify({ concurrency: CONCURRENCY, rows }, null, 2),
);
