/**
 * npm run bench:serve — the server at city scale on loopback, beside raw DuckDB, a bare Node
 * server and (given its location) Datasette.
 *
 * For each scenario, a few hundred ad-hoc requests (random filters, ids, ranges) are answered
 * twice, request by request: in this process by timing, straight in DuckDB, exactly the SQL
 * statements that answer it (those the server runs when it keeps nothing in its process: it finds
 * pages of plain filters by a scan of its own, see datasets/answers/page/scan.ts, and series and
 * numbered pages from their rows kept rendered, see server/series-files.ts), and alternating with that over HTTP by `odsnap serve` in its
 * own process, one connection, timed to the microsecond. Pairing them means both see the same
 * machine at the same moment, so the ratio does not drift with background load. A bare node:http
 * server answering the same number of bytes takes its turn too: no Node server can answer in
 * less than raw DuckDB plus that floor.
 *
 * Then wrk (one thread, 16 connections) runs each scenario's requests for throughput and tail
 * latency against the server and against a bare node:http server answering each path with the
 * very body the server gave (the ceiling of any Node server, and proof that wrk is not the limit),
 * beside the same statements run straight in DuckDB 16 at a time. Targets: single records ≥ 0.5×
 * the bare server's requests/s; filtered pages, series and rides ≥ 0.9× raw DuckDB's; the transactions mix's first
 * pages ≥ 10× Datasette's with its count (`--datasette DIR` or BENCH_DATASETTE, see
 * bench/peers/datasette.ts; without it the run says so and leaves that row out).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { join } from 'node:path';
import { datasets } from '../datasets/index.ts';
import { openSnapshot } from '../core/snapshot/read.ts';
import { ServedSnapshot } from '../server/served-snapshot.ts';
import { cityDataDir, median, ms, percentile, type Spread, spread } from './city.ts';
import { PAGE_SCENARIOS, PER_SCENARIO, RECORD_SCENARIOS, RECORDS_NONE_KEPT, SERIES_SCENARIOS, scenarios } from './serve-requests.ts';
import { startBareServer, startBodiesServer, startServe } from './processes.ts';
import { datasetteLocation, datasettePathFor, startDatasette, transactionsDatabase } from './peers/datasette.ts';
import { measure, wrk, type Measured } from './wrk.ts';
import { agent, BARE_PORT, BODIES_PORT, bareAgent, PEER_PORT, PORT, rawLoad, SECONDS, type Statements, timeRequest } from './serve-timing.ts';

/** Rounds of the 16-connection runs (BENCH_ROUNDS, at least 3 for a figure worth quoting). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/** The run of median throughput among rounds, with its own latencies. */
const medianRun = (runs: readonly Measured[]): Measured => {
  const middle = median(runs.map((run) => run.reqPerSec));
  // A load with no figure at all (raw DuckDB for requests that run no statement) has no median run: its first stands.
  return runs.find((run) => run.reqPerSec === middle) ?? runs[0]!;
};

const startServerProcess = (dataDir: string) => startServe(['--data', dataDir, '--quiet'], PORT);

const memoryOf = async (pid: number) => {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
};

const dataDir = await cityDataDir();
const snapshot = await openSnapshot(dataDir);
// Raw DuckDB runs the statements that answer each request in SQL: the server finds pages of plain
// filters by a scan in its own process instead (datasets/answers/page/scan.ts), with no statement.
const served = await ServedSnapshot.open(snapshot, datasets, { inProcess: false });
// BENCH_ONLY=<part of a scenario's name>: run just the matching scenarios.
const plan = Object.fromEntries(
  Object.entries(await scenarios((text) => served.use((c) => c.rows(text)))).filter(
    ([name]) => !process.env.BENCH_ONLY || name.includes(process.env.BENCH_ONLY),
  ),
);
const peer = datasetteLocation(process.argv.slice(2), process.env);
if ('missing' in peer) console.error(`no Datasette to compare with: ${peer.missing}`);
console.error(`snapshot ${snapshot.id}; server in its own process; raw DuckDB in this one; wrk for ${SECONDS} s per run…`);
const child = await startServerProcess(dataDir);
const bareServer = await startBareServer(BARE_PORT);
const odsnapUrl = `http://127.0.0.1:${PORT}`;
const rows: Record<string, unknown>[] = [];
const stopping: (() => Promise<void> | void)[] = [() => void child.kill('SIGTERM'), () => void bareServer.kill('SIGTERM')];
try {
  // The mix: each scenario's timed requests (not all of the records asked for once each).
  const mixed = Object.values(plan)
    .flatMap((paths) => paths.slice(0, PER_SCENARIO))
    .sort((a, b) => ((a.length * 7919) % 13) - ((b.length * 7919) % 13));
  const backToBack: Record<string, number[]> = {};
  const raw: Record<string, number[]> = {};
  const server: Record<string, number[]> = {};
  const bare: Record<string, number[]> = {};
  const recorded = new Map<string, Statements>();
  for (const [name, paths] of Object.entries(plan)) {
    await wrk(odsnapUrl, { paths: paths.slice(0, 20) }, 2, 4); // warm the server's statement caches for this kind of request
    backToBack[name] = [];
    raw[name] = [];
    server[name] = [];
    bare[name] = [];
    for (const path of paths.slice(0, PER_SCENARIO)) {
      const times = await timeRequest(served, path);
      backToBack[name].push(times.backToBack);
      raw[name].push(times.raw);
      server[name].push(times.server);
      bare[name].push(times.bare);
      recorded.set(path, times.statements);
    }
  }
  // Every answer's bytes, for a bare server to answer the same: the ceiling of any Node server, and of wrk, beside each figure.
  const bodies = new Map<string, Buffer>();
  for (const path of [...mixed, ...(plan[RECORDS_NONE_KEPT] ?? [])]) bodies.set(path, await bodyOf(path));
  const bodiesServer = await startBodiesServer(BODIES_PORT, bodies);
  stopping.push(() => void bodiesServer.kill('SIGTERM'));
  const bodiesUrl = `http://127.0.0.1:${BODIES_PORT}`;
  // Under load, each scenario takes its turn in each of ROUNDS rounds (server, raw DuckDB, bare
  // server, one after another): a ratio is taken within a round, and reported as the median and
  // range over the rounds, so that a quiet or a noisy moment shows as spread rather than as a result.
  const everyScenario = [...Object.entries(plan), ['all of the above, mixed', mixed] as const];
  const loads = new Map<string, { sixteen: Measured[]; raw: Measured[]; bare: Measured[] }>();
  /** The server's peak after each scenario's first turn: which kind of request raises it. */
  const peakAfter = new Map<string, number>();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, paths] of everyScenario) {
      const load = loads.get(name) ?? { sixteen: [], raw: [], bare: [] };
      loads.set(name, load);
      load.sixteen.push(await measure(odsnapUrl, { paths }, SECONDS));
      load.raw.push(
        await rawLoad(
          served,
          paths.flatMap((path) => (recorded.has(path) ? [recorded.get(path)!] : [])),
        ),
      );
      load.bare.push(await measure(bodiesUrl, { paths }, SECONDS));
      if (round === 1) peakAfter.set(name, (await memoryOf(child.pid!)).peakMiB);
    }
    console.error(`  round ${round} of ${ROUNDS}: done`);
  }
  for (const [name] of everyScenario) {
    const load = loads.get(name)!;
    const [sixteen, rawSixteen, bareSixteen] = [medianRun(load.sixteen), medianRun(load.raw), medianRun(load.bare)];
    const backToBackTimes = backToBack[name] ?? Object.values(backToBack).flat();
    const rawTimes = raw[name] ?? Object.values(raw).flat();
    const oneTimes = server[name] ?? Object.values(server).flat();
    const bareTimes = bare[name] ?? Object.values(bare).flat();
    rows.push({
      scenario: name,
      rawBackToBackP50: percentile(backToBackTimes, 50),
      rawP50: percentile(rawTimes, 50),
      rawP99: percentile(rawTimes, 99),
      oneP50: percentile(oneTimes, 50),
      oneP99: percentile(oneTimes, 99),
      ratioP50: percentile(oneTimes, 50) / percentile(rawTimes, 50),
      bareP50: percentile(bareTimes, 50),
      floorRatioP50: (percentile(rawTimes, 50) + percentile(bareTimes, 50)) / percentile(rawTimes, 50),
      sixteen,
      rawSixteen,
      bareSixteen,
      // Raw DuckDB runs only the mix's requests that have a statement (not items): no like-for-like ratio.
      ofRaw: name in plan ? spread(load.sixteen.map((run, i) => run.reqPerSec / load.raw[i]!.reqPerSec)) : undefined,
      ofBare: spread(load.sixteen.map((run, i) => run.reqPerSec / load.bare[i]!.reqPerSec)),
      target: RECORD_SCENARIOS.has(name)
        ? 'records: ≥ 0.5× bare'
        : PAGE_SCENARIOS.has(name)
          ? 'pages: ≥ 0.9× raw'
          : SERIES_SCENARIOS.has(name)
            ? 'series: ≥ 0.9× raw'
            : '',
      peakMiB: peakAfter.get(name)!,
    });
  }
  const peerRows = 'missing' in peer ? [] : await againstDatasette(peer, plan['transactions, filtered page'] ?? []);
  const memory = await memoryOf(child.pid!);
  // Requests answered with no statement have no raw DuckDB figure, and so no ratio to it.
  const times = (ratio: number) => (Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : '–');
  const ranged = (ratio: Spread | undefined) =>
    ratio && Number.isFinite(ratio.median) ? `${ratio.median.toFixed(2)}× (${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)}×)` : '–';
  const cell = (m: Measured) => (Number.isFinite(m.reqPerSec) ? `${Math.round(m.reqPerSec).toLocaleString('en')} / ${ms(m.p50)} / ${ms(m.p99)}` : '–');
  const table = [
    '| scenario | raw DuckDB back to back p50 ms | raw DuckDB alternating p50 / p99 ms | server 1 conn p50 / p99 ms | p50 ÷ raw | bare node:http, same bytes, p50 ms | (raw + bare) ÷ raw | server 16 conn req/s / p50 / p99 ms (median run) | raw DuckDB 16 at once req/s / p50 / p99 ms | server ÷ raw req/s, median (range) of rounds | bare node:http, same bodies, 16 conn req/s / p50 / p99 ms | server ÷ bare req/s, median (range) of rounds | target | errors | peak RSS after its first round |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r: any) =>
        `| ${r.scenario} | ${ms(r.rawBackToBackP50)} | ${ms(r.rawP50)} / ${ms(r.rawP99)} | ${ms(r.oneP50)} / ${ms(r.oneP99)} | ${times(r.ratioP50)} | ${ms(r.bareP50)} | ${times(r.floorRatioP50)} | ${cell(r.sixteen)} | ${cell(r.rawSixteen)} | ${ranged(r.ofRaw)} | ${cell(r.bareSixteen)} | ${ranged(r.ofBare)} | ${r.target} | 0 | ${r.peakMiB.toFixed(0)} MiB |`,
    ),
    ...(peerRows.length
      ? [
          '',
          '| against Datasette 0.64.8 (first pages of the transactions mix, same filters) | odsnap req/s / p50 / p99 ms | Datasette req/s / p50 / p99 ms | odsnap ÷ Datasette (target ≥ 10× with its count) |',
          '| --- | --- | --- | --- |',
          ...peerRows.map((r) => `| ${r.name} | ${cell(r.odsnap)} | ${cell(r.datasette)} | ${(r.odsnap.reqPerSec / r.datasette.reqPerSec).toFixed(1)}× |`),
        ]
      : ['', `No Datasette row: ${'missing' in peer ? peer.missing : ''}`]),
    '',
    `Server RSS after the runs: ${memory.rssMiB.toFixed(0)} MiB; peak ${memory.peakMiB.toFixed(0)} MiB. Snapshot ${snapshot.id}, 1 connection: each request's raw SQL run three times back to back, then three times alternating with the request over HTTP, medians; 16 connections: wrk -t1 -c16 for ${SECONDS} s after 2 s of warm-up, on the same machine, in ${ROUNDS} rounds, each scenario's server, raw and bare runs one after another in each round, ratios taken within a round; bare node:http, same bytes: a server in its own process answering the same number of bytes from memory, its turn in each round, the floor under any Node server; raw DuckDB 16 at once: the same statements for ${SECONDS} s, 16 requests in flight over a pool of connections like the server's; bare node:http, same bodies: a server in its own process answering each path with the body odsnap answered, under the same wrk load (the ceiling of any Node server, and proof that wrk is not what limits the others).`,
  ].join('\n');
  console.log(table);
  await mkdir('bench/results', { recursive: true });
  await writeFile(
    join('bench/results', `serve-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
    JSON.stringify(
      { snapshot: snapshot.id, seconds: SECONDS, rounds: ROUNDS, generator: 'wrk -t1 -c16', rows, loads: Object.fromEntries(loads), peer: peerRows, memory },
      null,
      2,
    ),
  );
} finally {
  for (const stop of stopping) await stop();
  agent.destroy();
  bareAgent.destroy();
  served.retire();
}

/** A request's body as odsnap answers it (identity), for the bare server to answer the same. */
async function bodyOf(path: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port: PORT, path, agent }, (response) => {
      const chunks: Buffer[] = [];
      response
        .on('data', (chunk: Buffer) => chunks.push(chunk))
        .on('end', () => (response.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`${path} answered ${response.statusCode}`))))
        .on('error', reject);
    }).on('error', reject);
  });
}

/**
 * The transactions mix's first pages (Datasette pages by key, not by offset) against Datasette on
 * the same rows in SQLite, an index on each filter column: with its count (its default, as odsnap
 * always gives the total) and without.
 */
async function againstDatasette(location: { checkouts: string[] }, paths: readonly string[]) {
  const firstPages = [...new Set(paths.map((path) => path.replace(/([?&])offset=\d+&?/, '$1').replace(/[?&]$/, '')))];
  const database = await transactionsDatabase(dataDir);
  const datasette = await startDatasette(location, database, PEER_PORT);
  stopping.push(() => datasette.stop());
  const odsnap = await measure(odsnapUrl, { paths: firstPages }, SECONDS);
  const withCount = await measure(datasette.url, { paths: firstPages.map((path) => datasettePathFor(path)) }, SECONDS);
  const withoutCount = await measure(datasette.url, { paths: firstPages.map((path) => datasettePathFor(path, { count: false })) }, SECONDS);
  return [
    { name: 'with its count', odsnap, datasette: withCount },
    { name: 'without its count (odsnap still counts)', odsnap, datasette: withoutCount },
  ];
}
