/**
 * npm run bench:static — the static tree served by `odsnap serve --static` beside nginx serving the
 * same files with the generated snippet, and a bare node:http server answering the same bytes from
 * memory, in the same run, on loopback, measured by wrk (Debian package `wrk`).
 *
 * The small sample's tree (BENCH_SCALE=tiny: the tiny one's) is built once into
 * .cache/bench/static-<scale>. Requests: 200 record files
 * of rcn/transactions (br, gzip, identity), the register's big list pages (br), and 64 KiB ranges
 * of the largest Parquet download; each run cycles through its files. Each server has one worker
 * (odsnap is one Node process; nginx `worker_processes 1`); wrk runs one thread with 16
 * connections for BENCH_SECONDS (6), BENCH_ROUNDS (3) times per server taking turns, after a 2 s
 * warm-up: the same server varies twofold from one run to the next on this machine, and turns
 * spread that drift over all three. Reports the medians of req/s, p50 and p99 of each, and the
 * ratios of requests/s taken within each round, as the median and the range of the rounds:
 * odsnap ÷ nginx (targets: ≥ 0.8× for record files and list pages, ≥ 0.6× for Parquet ranges;
 * p99 ≤ 2×), bare server ÷ nginx and odsnap ÷ bare server. The bare server's figure is the
 * ceiling of any Node server here and shows that wrk is not what limits the others. Results go
 * to bench/results/static-<time>.json. BENCH_ONLY=<part of a name> runs some scenarios only.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { datasets } from '../datasets/index.ts';
import { buildStatic } from '../scripts/static/build-static.ts';
import { startNginx } from '../test/fixtures/nginx.ts';
import { scales, type Scale } from '../datasets/vocabulary/sample.ts';
import { median, sampleDataDir, type Spread, spread } from './city.ts';
import { startServe, stop } from './processes.ts';
import { measure, wrk, type Measured } from './wrk.ts';

const CONNECTIONS = 16;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
/** Runs of each server per scenario, in turns; their medians are reported. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PORT = 4393;
const RANGE_BYTES = 64 * 1024;

const scale = (process.env.BENCH_SCALE ?? 'small') as Scale;
if (!scales.includes(scale)) throw new Error(`BENCH_SCALE must be one of ${scales.join(', ')}`);
const dataDir = await sampleDataDir(scale);
const out = join(process.cwd(), '.cache', 'bench', `static-${scale}`, 'dist');
if (!existsSync(out)) {
  console.error(`building the ${scale} tree once…`);
  await mkdir(join(out, '..'), { recursive: true });
  await buildStatic({ dataDir, out, datasets });
}
const tree = await realpath(out);
const catalogue = JSON.parse(await readFile(join(tree, 'downloads/catalogue.json'), 'utf8')) as { tables: { files: { url: string; bytes: number }[] }[] };
const parquet = catalogue.tables.flatMap((t) => t.files).sort((a, b) => b.bytes - a.bytes)[0]!;
const filesIn = async (dir: string, most: number) =>
  (await readdir(join(tree, dir), { withFileTypes: true }))
    .filter((e) => e.isFile() && e.name.endsWith('.json'))
    .map((e) => `/${dir}/${e.name}`)
    .sort()
    .slice(0, most);
const records = await filesIn('api/public/rcn/transactions', 200);
const pages = await filesIn('api/public/rcn/transactions/offset', 50);

interface Scenario {
  readonly name: string;
  readonly paths: readonly string[];
  readonly headers: Readonly<Record<string, string>>;
  /** The least odsnap ÷ nginx requests/s this scenario aims at. */
  readonly target: number;
}
// BENCH_ONLY=<part of a scenario's name>: run just the matching scenarios.
const scenarios: Scenario[] = (<Scenario[]>[
  { name: `${records.length} record files, br`, paths: records, headers: { 'Accept-Encoding': 'br, gzip' }, target: 0.8 },
  { name: `${records.length} record files, gzip`, paths: records, headers: { 'Accept-Encoding': 'gzip' }, target: 0.8 },
  { name: `${records.length} record files, identity`, paths: records, headers: {}, target: 0.8 },
  { name: `${pages.length} list pages, br`, paths: pages, headers: { 'Accept-Encoding': 'br, gzip' }, target: 0.8 },
  {
    name: `64 KiB ranges of a ${(parquet.bytes / 1024 / 1024).toFixed(1)} MiB Parquet file`,
    paths: [parquet.url],
    headers: { Range: `bytes=0-${RANGE_BYTES - 1}` },
    target: 0.6,
  },
]).filter((scenario) => !process.env.BENCH_ONLY || scenario.name.includes(process.env.BENCH_ONLY));

/** The median run's figures, each taken on its own: requests/s, p50 and p99. */
function medianOf(runs: readonly Measured[]): Measured {
  const of = (figure: keyof Measured) => median(runs.map((run) => run[figure]));
  return { reqPerSec: of('reqPerSec'), p50: of('p50'), p99: of('p99') };
}

/** One server's requests/s ÷ another's, taken within each round: the machine's drift falls on both alike. */
interface RoundRatios extends Spread {
  readonly rounds: readonly number[];
}
function roundRatios(runs: readonly Measured[], of: readonly Measured[]): RoundRatios {
  const rounds = runs.map((run, i) => run.reqPerSec / of[i]!.reqPerSec);
  return { rounds, ...spread(rounds) };
}

/** The ceiling: the same bytes, variants and ranges from memory, no file system, no routing. */
async function bareNode() {
  const bodies = new Map<string, Buffer>();
  for (const path of [...records, ...pages]) {
    bodies.set(`${path} identity`, await readFile(join(tree, path)));
    bodies.set(`${path} br`, await readFile(join(tree, `${path}.br`)));
    bodies.set(`${path} gzip`, await readFile(join(tree, `${path}.gz`)));
  }
  const range = (await readFile(join(tree, parquet.url))).subarray(0, RANGE_BYTES);
  const server = createServer((request, response) => {
    if (request.headers.range) {
      response
        .writeHead(206, {
          'content-type': 'application/vnd.apache.parquet',
          'content-range': `bytes 0-${RANGE_BYTES - 1}/${parquet.bytes}`,
          'content-length': range.length,
        })
        .end(range);
      return;
    }
    const accepts = request.headers['accept-encoding'] ?? '';
    const encoding = accepts.includes('br') ? 'br' : accepts.includes('gzip') ? 'gzip' : 'identity';
    const body = bodies.get(`${request.url} ${encoding}`)!;
    response
      .writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': body.length,
        ...(encoding === 'identity' ? {} : { 'content-encoding': encoding }),
      })
      .end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function startOdsnap() {
  const child = await startServe(['--data', dataDir, '--static', out, '--quiet'], PORT);
  return { url: `http://127.0.0.1:${PORT}`, stop: () => stop(child) };
}

const servers = {
  odsnap: await startOdsnap(),
  nginx: await startNginx(out, join(out, 'nginx.conf'), join(process.cwd(), '.cache', 'bench', 'nginx')),
  bare: await bareNode(),
};
const rows: {
  scenario: string;
  target: number;
  odsnap: Measured;
  nginx: Measured;
  bare: Measured;
  /** Ratios of requests/s in each round (`rounds`), with their median and range. */
  ofNginx: RoundRatios;
  bareOfNginx: RoundRatios;
  ofBare: RoundRatios;
  p99Ratio: number;
}[] = [];
try {
  for (const scenario of scenarios) {
    const runs = {} as Record<keyof typeof servers, Measured[]>;
    // Rounds taking turns, so that the machine's drift (the same server varies twofold from one run to the next here) falls on each alike.
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [name, server] of Object.entries(servers) as [keyof typeof servers, { url: string }][]) {
        console.error(`${scenario.name}: ${name}, round ${round} of ${ROUNDS}…`);
        const load = { paths: scenario.paths, headers: scenario.headers };
        (runs[name] ??= []).push(round === 1 ? await measure(server.url, load, SECONDS, CONNECTIONS) : await wrk(server.url, load, SECONDS, CONNECTIONS));
      }
    }
    const results = Object.fromEntries(Object.entries(runs).map(([name, measured]) => [name, medianOf(measured)])) as Record<keyof typeof servers, Measured>;
    const row = {
      scenario: scenario.name,
      target: scenario.target,
      ...results,
      ofNginx: roundRatios(runs.odsnap, runs.nginx),
      bareOfNginx: roundRatios(runs.bare, runs.nginx),
      ofBare: roundRatios(runs.odsnap, runs.bare),
      p99Ratio: results.odsnap.p99 / results.nginx.p99,
    };
    rows.push(row);
    const listed = (ratios: RoundRatios) => ratios.rounds.map((ratio) => ratio.toFixed(2)).join(', ');
    console.error(
      `${scenario.name}, by round: odsnap ÷ nginx ${listed(row.ofNginx)}; bare ÷ nginx ${listed(row.bareOfNginx)}; odsnap ÷ bare ${listed(row.ofBare)}`,
    );
  }
} finally {
  await Promise.all(Object.values(servers).map((server) => server.stop()));
}

const cell = (r: Measured) => `${Math.round(r.reqPerSec).toLocaleString('en')} / ${r.p50.toFixed(2)} / ${r.p99.toFixed(2)}`;
const ranged = (ratios: RoundRatios) => `${ratios.median.toFixed(2)}× (${ratios.min.toFixed(2)}–${ratios.max.toFixed(2)}×)`;
console.log(
  [
    '| request | odsnap serve req/s / p50 / p99 ms | nginx req/s / p50 / p99 ms | odsnap ÷ nginx req/s, median (range) of rounds | target | odsnap ÷ nginx p99 (target ≤ 2) | bare Node in memory req/s / p50 / p99 ms | bare ÷ nginx req/s, median (range) of rounds | odsnap ÷ bare req/s, median (range) of rounds |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${cell(r.odsnap)} | ${cell(r.nginx)} | ${ranged(r.ofNginx)} | ≥ ${r.target}× | ${r.p99Ratio.toFixed(2)}× | ${cell(r.bare)} | ${ranged(r.bareOfNginx)} | ${ranged(r.ofBare)} |`,
    ),
    '',
    `${scale} tree; wrk -t1 -c${CONNECTIONS}, ${ROUNDS} rounds of ${SECONDS} s taking turns (after a 2 s warm-up), medians; one worker each; same machine. The bare server's figure is what wrk reaches against a Node server doing nothing but send the bytes.`,
  ].join('\n'),
);
await mkdir('bench/results', { recursive: true });
const resultsFile = join('bench/results', `static-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
await writeFile(resultsFile, JSON.stringify({ generator: 'wrk', scale, connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS, rows }, null, 2));
console.error(`results: ${resultsFile}`);
