/**
 * npm run bench:serve — the server at city scale on loopback, beside raw DuckDB.
 *
 * For each scenario, a few hundred ad-hoc requests (random filters, ids, ranges) are answered
 * twice, request by request: in this process by timing, straight in DuckDB, exactly the SQL
 * statements the server runs for it, and alternating with that over HTTP by `odsnap serve` in its
 * own process, one connection, timed to the microsecond. Pairing them means both see the same
 * machine at the same moment, so the ratio does not drift with background load. Then autocannon
 * runs the same requests over 16 connections for throughput and tail latency, beside their
 * statements run straight in DuckDB 16 at a time. Reports p50/p99, req/s, the ratio to raw, and
 * the server's peak RSS.
 *
 * A third process sets the floor under the ratio: a bare node:http server that answers with the
 * same number of bytes from memory, timed alternating with the other two. No Node server can
 * answer in less than raw DuckDB plus that floor, so (raw + floor) ÷ raw is the best ratio any
 * such server could reach for the request.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { Agent, get } from 'node:http';
import { join } from 'node:path';
import type { DuckDBPreparedStatement, DuckDBValue } from '@duckdb/node-api';
import autocannon from 'autocannon';
import { renderContext } from '../datasets/vocabulary/render.ts';
import { datasets } from '../datasets/index.ts';
import { openSnapshot } from '../core/snapshot/read.ts';
import { kindOf } from '../datasets/answers/index.ts';
import { createRouter } from '../datasets/vocabulary/router.ts';
import { ServedSnapshot } from '../server/served-snapshot.ts';
import type { StatementRunner } from '../datasets/answers/serving.ts';
import { asJsonRows } from '../core/db/duckdb.ts';
import { cityDataDir, ms, percentile } from './city.ts';
import { scenarios } from './serve-requests.ts';
import { startBareServer, startServe } from './processes.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const PORT = 4391;
const BARE_PORT = 4392;

const route = createRouter(datasets);

/** One keep-alive connection to each server, so a request's time is the server's and not a TCP handshake. */
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const bareAgent = new Agent({ keepAlive: true, maxSockets: 1 });

/** Times one request over HTTP until the last byte of the body; returns the time and the body's length. */
async function httpOnce(port: number, path: string, via: Agent): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  let bytes = 0;
  const status = await new Promise<number>((resolve, reject) => {
    get({ host: '127.0.0.1', port, path, agent: via }, (response) => {
      response.on('data', (chunk: Buffer) => (bytes += chunk.length)).on('end', () => resolve(response.statusCode ?? 0)).on('error', reject);
    }).on('error', reject);
  });
  if (status !== 200) throw new Error(`${path} answered ${status}`);
  return { ms: performance.now() - started, bytes };
}

/**
 * Times one request straight in DuckDB and over HTTP. Raw: the statements the server runs for it,
 * prepared once (as the server keeps them prepared), each result's chunks read out. Three raw runs
 * back to back first, then three pairs of a raw run and a request, alternating: DuckDB takes
 * longer for a statement after its threads have idled (2.2 ms back to back, 3.4 ms after 5 ms of
 * idle, for a transaction by id), and a server always idles between its statements, so the
 * ratio is taken against the alternating runs, where each side idles while the other works.
 * The bare server's answer of the same length takes its turn in each round. Medians of three.
 */
type Statements = [string, readonly DuckDBValue[]][];

async function timeRequest(served: ServedSnapshot, path: string): Promise<{ backToBack: number; raw: number; server: number; bare: number; statements: Statements }> {
  const url = new URL(path, 'http://bench.invalid');
  const found = route(url.pathname)!;
  const params = found.endpoint.parse({ ...Object.fromEntries(url.searchParams), ...found.params }).data!;
  const statements: Statements = [];
  return served.use(async (connection) => {
    const recorder: StatementRunner = {
      rows: (sql, values = [], reading = 'columns') => (statements.push([reading === 'json' ? asJsonRows(sql) : sql, values]), connection.rows(sql, values, reading)),
    };
    const { dataset, endpoint } = found;
    await kindOf(endpoint.answer).serve({ served, dataset, endpoint, path: url.pathname, params, query: Object.fromEntries(url.searchParams), context: renderContext({ baseUrl: 'http://bench' }), base: 'http://bench', connection: recorder }, endpoint.answer);
    const prepared: { statement: DuckDBPreparedStatement; values: readonly DuckDBValue[] }[] = [];
    for (const [sql, values] of statements) prepared.push({ statement: await connection.connection.prepare(sql), values });
    const rawOnce = async () => {
      const started = performance.now();
      for (const { statement, values } of prepared) {
        statement.clearBindings();
        if (values.length) statement.bind([...values]);
        const result = await statement.run();
        for (let c = 0; c < result.chunkCount; c++) result.getChunk(c);
      }
      return performance.now() - started;
    };
    const backToBack = [await rawOnce(), await rawOnce(), await rawOnce()];
    const raw: number[] = [];
    const server: number[] = [];
    const bare: number[] = [];
    for (let run = 0; run < 3; run++) {
      raw.push(await rawOnce());
      const answered = await httpOnce(PORT, path, agent);
      server.push(answered.ms);
      bare.push((await httpOnce(BARE_PORT, `/${answered.bytes}`, bareAgent)).ms);
    }
    return { backToBack: percentile(backToBack, 50), raw: percentile(raw, 50), server: percentile(server, 50), bare: percentile(bare, 50), statements };
  });
}

/**
 * The reference for the 16-connection figures: the same requests' statements run straight in
 * DuckDB, 16 at a time, for as long as autocannon runs, through a pool of connections like the
 * server's (each statement prepared once per connection, its chunks read out), and how long each
 * took including its wait for a connection. What this gives is what DuckDB alone allows on this
 * machine, with 16 requests in flight.
 */
async function rawLoad(served: ServedSnapshot, requests: readonly Statements[]) {
  const prepared = new Map<unknown, Map<string, DuckDBPreparedStatement>>();
  const times: number[] = [];
  const until = performance.now() + SECONDS * 1000;
  // Each in flight goes through the requests in order from the first, as each of autocannon's connections does.
  const worker = async () => {
    for (let next = 0; performance.now() < until; next++) {
      const statements = requests[next % requests.length]!;
      const started = performance.now();
      await served.use(async (connection) => {
        let own = prepared.get(connection);
        if (!own) prepared.set(connection, (own = new Map()));
        for (const [sql, values] of statements) {
          let statement = own.get(sql);
          if (!statement) own.set(sql, (statement = await connection.connection.prepare(sql)));
          statement.clearBindings();
          if (values.length) statement.bind([...values]);
          const result = await statement.run();
          for (let c = 0; c < result.chunkCount; c++) result.getChunk(c);
        }
      });
      times.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return { p50: percentile(times, 50), p99: percentile(times, 99), reqPerSec: times.length / SECONDS };
}

const startServerProcess = (dataDir: string) => startServe(['--data', dataDir, '--quiet'], PORT);

const memoryOf = async (pid: number) => {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
};

async function load(paths: readonly string[], connections: number) {
  const result = await autocannon({
    url: `http://127.0.0.1:${PORT}`,
    connections,
    duration: SECONDS,
    requests: paths.map((path) => ({ method: 'GET', path })),
  });
  // Any failure is a finding: say which kind, so it can be looked into (the server logs its 500s on stdout without --quiet).
  if (result.errors + result.non2xx) console.error(`  ${connections} connections: ${JSON.stringify({ errors: result.errors, timeouts: result.timeouts, statuses: result.statusCodeStats })}`);
  return { p50: result.latency.p50, p99: result.latency.p99, reqPerSec: result.requests.average, errors: result.errors + result.non2xx };
}

const dataDir = await cityDataDir();
const snapshot = await openSnapshot(dataDir);
const served = await ServedSnapshot.open(snapshot, datasets);
// BENCH_ONLY=<part of a scenario's name>: run just the matching scenarios.
const plan = Object.fromEntries(Object.entries(await scenarios((text) => served.use((c) => c.rows(text)))).filter(([name]) => !process.env.BENCH_ONLY || name.includes(process.env.BENCH_ONLY)));
console.error(`snapshot ${snapshot.id}; server in its own process; raw DuckDB in this one; ${SECONDS} s per autocannon run…`);
const child = await startServerProcess(dataDir);
const bareServer = await startBareServer(BARE_PORT);
const rows: Record<string, unknown>[] = [];
try {
  const mixed = Object.values(plan).flat().sort((a, b) => (a.length * 7919) % 13 - (b.length * 7919) % 13);
  const backToBack: Record<string, number[]> = {};
  const raw: Record<string, number[]> = {};
  const server: Record<string, number[]> = {};
  const bare: Record<string, number[]> = {};
  const recorded = new Map<string, Statements>();
  for (const [name, paths] of Object.entries(plan)) {
    await load(paths.slice(0, 20), 4); // warm the server's statement caches for this kind of request
    backToBack[name] = [];
    raw[name] = [];
    server[name] = [];
    bare[name] = [];
    for (const path of paths) {
      const times = await timeRequest(served, path);
      backToBack[name].push(times.backToBack);
      raw[name].push(times.raw);
      server[name].push(times.server);
      bare[name].push(times.bare);
      recorded.set(path, times.statements);
    }
  }
  for (const [name, paths] of [...Object.entries(plan), ['all of the above, mixed', mixed] as const]) {
    const sixteen = await load(paths, 16);
    const rawSixteen = await rawLoad(served, paths.map((path) => recorded.get(path)!));
    const backToBackTimes = backToBack[name] ?? Object.values(backToBack).flat();
    const rawTimes = raw[name] ?? Object.values(raw).flat();
    const oneTimes = server[name] ?? Object.values(server).flat();
    const bareTimes = bare[name] ?? Object.values(bare).flat();
    rows.push({
      scenario: name,
      rawBackToBackP50: percentile(backToBackTimes, 50),
      rawP50: percentile(rawTimes, 50), rawP99: percentile(rawTimes, 99),
      oneP50: percentile(oneTimes, 50), oneP99: percentile(oneTimes, 99),
      ratioP50: percentile(oneTimes, 50) / percentile(rawTimes, 50),
      bareP50: percentile(bareTimes, 50),
      floorRatioP50: (percentile(rawTimes, 50) + percentile(bareTimes, 50)) / percentile(rawTimes, 50),
      sixteenP50: sixteen.p50, sixteenP99: sixteen.p99, sixteenReqPerSec: sixteen.reqPerSec,
      rawSixteenP50: rawSixteen.p50, rawSixteenP99: rawSixteen.p99, rawSixteenReqPerSec: rawSixteen.reqPerSec,
      errors: sixteen.errors,
      // The server's peak so far: shows which kind of request raises it.
      peakMiB: (await memoryOf(child.pid!)).peakMiB,
    });
    console.error(`  ${name}: done`);
  }
  const memory = await memoryOf(child.pid!);
  const table = [
    '| scenario | raw DuckDB back to back p50 ms | raw DuckDB alternating p50 / p99 ms | server 1 conn p50 / p99 ms | p50 ÷ raw | bare node:http, same bytes, p50 ms | (raw + bare) ÷ raw | raw DuckDB 16 at once p50 / p99 ms, req/s | server 16 conn p50 / p99 ms | req/s | errors | peak RSS so far |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map((r: any) =>
      `| ${r.scenario} | ${ms(r.rawBackToBackP50)} | ${ms(r.rawP50)} / ${ms(r.rawP99)} | ${ms(r.oneP50)} / ${ms(r.oneP99)} | ${r.ratioP50.toFixed(2)}× | ${ms(r.bareP50)} | ${r.floorRatioP50.toFixed(2)}× | ${ms(r.rawSixteenP50)} / ${ms(r.rawSixteenP99)}, ${Math.round(r.rawSixteenReqPerSec)} | ${ms(r.sixteenP50)} / ${ms(r.sixteenP99)} | ${Math.round(r.sixteenReqPerSec)} | ${r.errors} | ${r.peakMiB.toFixed(0)} MiB |`),
    '',
    `Server RSS after the runs: ${memory.rssMiB.toFixed(0)} MiB; peak ${memory.peakMiB.toFixed(0)} MiB. Snapshot ${snapshot.id}, 1 connection: each request's raw SQL run three times back to back, then three times alternating with the request over HTTP, medians; 16 connections: autocannon for ${SECONDS} s, on the same machine; bare node:http: a server in its own process answering the same number of bytes from memory, its turn in each round, the floor under any Node server; raw DuckDB 16 at once: the same statements for ${SECONDS} s, 16 requests in flight over a pool of connections like the server's.`,
  ].join('\n');
  console.log(table);
  await mkdir('bench/results', { recursive: true });
  await writeFile(join('bench/results', `serve-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify({ snapshot: snapshot.id, seconds: SECONDS, rows, memory }, null, 2));
} finally {
  child.kill('SIGTERM');
  bareServer.kill('SIGTERM');
  agent.destroy();
  bareAgent.destroy();
  served.retire();
}
