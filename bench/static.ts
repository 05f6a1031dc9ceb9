/**
 * npm run bench:static — the static tree served by `odsnap serve` beside nginx serving the same
 * files with the generated snippet, in the same run, on loopback.
 *
 * The small sample's tree is built once into .cache/bench/static-small. Two requests: a static
 * JSON file (a register page, ~40 KB, asked for with `Accept-Encoding: br, gzip`, so both send
 * the precompressed variant) and a 64 KiB range of the largest Parquet download. Each server gets
 * one worker (odsnap is one Node process; nginx `worker_processes 1`); autocannon runs in this
 * process with 16 connections for 10 s per run, after a 2 s warm-up. A bare Node server holding
 * the same bytes in memory is measured too, as the ceiling for any Node server on this machine.
 * Reports req/s, p50 and p99, and odsnap's ratio to nginx (target ≥ 0.7×).
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { datasets } from '../datasets/index.ts';
import { buildStatic } from '../scripts/static/build-static.ts';
import { startNginx } from '../test/fixtures/nginx.ts';
import { sampleDataDir } from './city.ts';
import { startServe, stop } from './processes.ts';

const CONNECTIONS = 16;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PORT = 4393;

const dataDir = await sampleDataDir('small');
const out = join(process.cwd(), '.cache', 'bench', 'static-small', 'dist');
if (!existsSync(out)) {
  console.error('building the small tree once…');
  await mkdir(join(out, '..'), { recursive: true });
  await buildStatic({ dataDir, out, datasets });
}
const tree = await realpath(out);
const catalogue = JSON.parse(await readFile(join(tree, 'downloads/catalogue.json'), 'utf8')) as { tables: { files: { url: string; bytes: number }[] }[] };
const parquet = catalogue.tables.flatMap((t) => t.files).sort((a, b) => b.bytes - a.bytes)[0]!;
const jsonPath = '/api/public/rcn/transactions/offset/100.json';
const RANGE = `bytes=0-${64 * 1024 - 1}`;

const scenarios = [
  { name: `static JSON (${jsonPath}, br)`, path: jsonPath, headers: { 'accept-encoding': 'br, gzip' } },
  { name: `Parquet range (64 KiB of ${(parquet.bytes / 1024 / 1024).toFixed(1)} MiB)`, path: parquet.url, headers: { range: RANGE } },
];

async function measure(url: string, scenario: (typeof scenarios)[number]) {
  const run = (duration: number) => autocannon({ url: url + scenario.path, connections: CONNECTIONS, duration, headers: scenario.headers });
  await run(2);
  const result = await run(SECONDS);
  if (result.non2xx || result.errors) throw new Error(`${url}${scenario.path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { reqPerSec: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, bytesPerSec: result.throughput.average };
}

/** The ceiling: the same bytes from memory, no file system, no lookups. */
async function bareNode() {
  const br = await readFile(join(tree, `${jsonPath}.br`));
  const bytes = (await readFile(join(tree, parquet.url))).subarray(0, 64 * 1024);
  const server = createServer((request, response) => {
    if (request.url === jsonPath) response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'br', 'content-length': br.length }).end(br);
    else response.writeHead(206, { 'content-type': 'application/vnd.apache.parquet', 'content-range': `bytes 0-65535/${parquet.bytes}`, 'content-length': bytes.length }).end(bytes);
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
  'bare Node (in memory)': await bareNode(),
};
const rows: Record<string, unknown>[] = [];
try {
  for (const scenario of scenarios) {
    const results: Record<string, Awaited<ReturnType<typeof measure>>> = {};
    for (const [name, server] of Object.entries(servers)) {
      console.error(`${scenario.name}: ${name}…`);
      results[name] = await measure(server.url, scenario);
    }
    rows.push({ scenario: scenario.name, ...results, ratio: results.odsnap!.reqPerSec / results.nginx!.reqPerSec });
  }
} finally {
  await Promise.all(Object.values(servers).map((server) => server.stop()));
}

const cell = (r: { reqPerSec: number; p50: number; p99: number }) => `${Math.round(r.reqPerSec).toLocaleString('en')} / ${r.p50} / ${r.p99}`;
console.log(
  [
    '| request | odsnap serve req/s / p50 / p99 ms | nginx req/s / p50 / p99 ms | odsnap ÷ nginx | bare Node in memory req/s / p50 / p99 ms |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map((r: any) => `| ${r.scenario} | ${cell(r.odsnap)} | ${cell(r.nginx)} | ${r.ratio.toFixed(2)}× | ${cell(r['bare Node (in memory)'])} |`),
    '',
    `autocannon, ${CONNECTIONS} connections, ${SECONDS} s after a 2 s warm-up; one worker each; same machine.`,
  ].join('\n'),
);
await mkdir('bench/results', { recursive: true });
await writeFile(join('bench/results', `static-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify({ connections: CONNECTIONS, seconds: SECONDS, rows }, null, 2));
