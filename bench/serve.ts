/**
 * npm run bench:serve — the server at city scale on loopback, beside raw DuckDB.
 *
 * For each scenario, a few hundred ad-hoc requests (random filters, ids, ranges) are answered
 * twice: over HTTP by `odsnap serve` in its own process (autocannon, 1 and 16 connections), and
 * in this process by timing, straight in DuckDB, exactly the SQL statements the server runs for
 * each request. Reports p50/p99 and req/s, the ratio of the two, and the server's peak RSS.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBValue } from '@duckdb/node-api';
import autocannon from 'autocannon';
import { renderContext } from '../datasets/core/render.ts';
import { Random } from '../datasets/core/random.ts';
import { datasets } from '../datasets/index.ts';
import { openSnapshot } from '../scripts/snapshot/read.ts';
import { answer } from '../server/answers/index.ts';
import { createRouter } from '../datasets/core/router.ts';
import { ServedSnapshot } from '../server/served-snapshot.ts';
import { cityDataDir, ms, percentile } from './city.ts';
import { startServe } from './processes.ts';

const PER_SCENARIO = 200;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const PORT = 4391;

type Rows = Record<string, unknown>[];

/** Ad-hoc requests per scenario, drawn from the city's own ids, streets and places. */
async function scenarios(served: ServedSnapshot): Promise<Record<string, string[]>> {
  const random = new Random('bench-serve');
  const sql = (text: string) => served.use((c) => c.rows(text)) as Promise<Rows>;
  const transactions = (await sql(`SELECT transaction_gml_id AS id FROM rcn_transactions USING SAMPLE 400 ROWS`)).map((r) => r.id as string);
  const properties = (await sql(`SELECT property_gml_id AS id, (min_lon + max_lon) / 2 AS lon, (min_lat + max_lat) / 2 AS lat, address_parts FROM rcn_properties USING SAMPLE 400 ROWS`)) as { id: string; lon: number; lat: number; address_parts: string[] }[];
  const counters = (await sql(`SELECT id FROM bike_counter_counters WHERE active_to IS NULL`)).map((r) => r.id as string);
  const series = (await sql(`SELECT DISTINCT station_id, sensor_code FROM air_quality_live_readings`)) as { station_id: string; sensor_code: string }[];
  const p = '/api/public';
  const day = (from: string, spanDays: number) => {
    const start = Date.parse(`${from}T00:00:00Z`) + random.int(0, spanDays) * 86_400_000;
    return new Date(start).toISOString().slice(0, 10);
  };
  const plus = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
  const many = (make: () => string) => Array.from({ length: PER_SCENARIO }, make);
  return {
    'transactions, filtered page': many(() => {
      const query = new URLSearchParams({ limit: '100', offset: String(100 * random.int(0, 9)) });
      if (random.chance(0.6)) query.set('marketType', String(random.int(1, 2)));
      if (random.chance(0.3)) query.set('transactionType', random.pick(['1', '3']));
      if (random.chance(0.5)) {
        const from = day('2020-01-01', 2000);
        query.set('documentDateFrom', from);
        query.set('documentDateTo', plus(from, random.int(30, 365)));
      }
      if (random.chance(0.4)) query.set('grossPriceFrom', String(random.int(3, 20) * 100_000));
      return `${p}/rcn/transactions?${query}`;
    }),
    'properties, filtered page': many(() => {
      const property = random.pick(properties);
      const query = new URLSearchParams({ limit: '50' });
      const kind = random.int(0, 2);
      if (kind === 0) query.set('address', random.pick(property.address_parts.filter((a) => a.length > 3)).slice(-7));
      if (kind === 1) query.set('bbox', [property.lon - 0.006, property.lat - 0.004, property.lon + 0.006, property.lat + 0.004].map((n) => n.toFixed(5)).join(','));
      if (kind === 2) {
        query.set('propertyType', String(random.int(1, 4)));
        query.set('landAreaFrom', String(random.int(1, 20) * 100));
      }
      return `${p}/rcn/properties?${query}`;
    }),
    'transaction by id': many(() => `${p}/rcn/transactions/${encodeURIComponent(random.pick(transactions))}`),
    'property by id, with details': many(() => `${p}/rcn/properties/${encodeURIComponent(random.pick(properties).id)}`),
    'counter readings, one month': many(() => {
      const from = day('2024-01-01', 600);
      return `${p}/bike-counter/counters/${random.pick(counters)}/readings?from=${from}&to=${plus(from, 29)}&timezone=Europe/Warsaw`;
    }),
    'rides, one day, a page': many(() => {
      const from = day('2025-04-01', 170);
      return `${p}/citybike/rides?from=${from}&to=${from}&pageSize=100&page=${random.int(1, 5)}&timezone=Europe/Warsaw`;
    }),
    'air history, one week': many(() => {
      const s = random.pick(series);
      const from = day('2024-01-01', 600);
      return `${p}/air-quality/history/${s.station_id}/${s.sensor_code}?from=${from}&to=${plus(from, 6)}`;
    }),
  };
}

/** The statements the server runs for each request, timed straight in DuckDB (median of three). */
async function rawTimes(served: ServedSnapshot, paths: readonly string[]): Promise<number[]> {
  const route = createRouter(datasets);
  const times: number[] = [];
  for (const path of paths) {
    const url = new URL(path, 'http://bench.invalid');
    const found = route(url.pathname)!;
    const params = found.endpoint.parse({ ...Object.fromEntries(url.searchParams), ...found.params }).data!;
    const statements: [string, readonly DuckDBValue[]][] = [];
    await served.use(async (connection) => {
      const recorder = { rows: (sql: string, values: readonly DuckDBValue[] = []) => (statements.push([sql, values]), connection.rows(sql, values)) };
      await answer({ served, dataset: found.dataset, endpoint: found.endpoint, path: url.pathname, params, query: Object.fromEntries(url.searchParams), context: renderContext({ baseUrl: 'http://bench' }), connection: recorder });
      const runs: number[] = [];
      for (let run = 0; run < 3; run++) {
        const started = performance.now();
        for (const [sql, values] of statements) {
          const statement = await connection.connection.prepare(sql);
          if (values.length) statement.bind([...values]);
          await statement.runAndReadAll();
        }
        runs.push(performance.now() - started);
      }
      times.push(percentile(runs, 50));
    });
  }
  return times;
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
  return { p50: result.latency.p50, p99: result.latency.p99, reqPerSec: result.requests.average, errors: result.errors + result.non2xx };
}

const dataDir = await cityDataDir();
const snapshot = await openSnapshot(dataDir);
console.error(`snapshot ${snapshot.id}; raw DuckDB times in this process…`);
const served = await ServedSnapshot.open(snapshot, datasets);
const plan = await scenarios(served);
const raw: Record<string, number[]> = {};
for (const [name, paths] of Object.entries(plan)) raw[name] = await rawTimes(served, paths);
served.retire();

console.error(`server in its own process, ${SECONDS} s per run…`);
const child = await startServerProcess(dataDir);
const rows: Record<string, unknown>[] = [];
try {
  const mixed = Object.values(plan).flat().sort((a, b) => (a.length * 7919) % 13 - (b.length * 7919) % 13);
  for (const [name, paths] of [...Object.entries(plan), ['all of the above, mixed', mixed] as const]) {
    await load(paths.slice(0, 20), 4); // warm the server's statement caches for this kind of request
    const one = await load(paths, 1);
    const sixteen = await load(paths, 16);
    const rawTime = raw[name] ?? Object.values(raw).flat();
    rows.push({
      scenario: name,
      rawP50: percentile(rawTime, 50), rawP99: percentile(rawTime, 99),
      oneP50: one.p50, oneP99: one.p99, oneReqPerSec: one.reqPerSec,
      ratioP50: one.p50 / percentile(rawTime, 50),
      sixteenP50: sixteen.p50, sixteenP99: sixteen.p99, sixteenReqPerSec: sixteen.reqPerSec,
      errors: one.errors + sixteen.errors,
      // The server's peak so far: shows which kind of request raises it.
      peakMiB: (await memoryOf(child.pid!)).peakMiB,
    });
    console.error(`  ${name}: done`);
  }
  const memory = await memoryOf(child.pid!);
  const table = [
    '| scenario | raw DuckDB p50 / p99 ms | server 1 conn p50 / p99 ms | req/s | p50 ÷ raw | server 16 conn p50 / p99 ms | req/s | errors | peak RSS so far |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map((r: any) =>
      `| ${r.scenario} | ${ms(r.rawP50)} / ${ms(r.rawP99)} | ${ms(r.oneP50)} / ${ms(r.oneP99)} | ${Math.round(r.oneReqPerSec)} | ${r.ratioP50.toFixed(2)}× | ${ms(r.sixteenP50)} / ${ms(r.sixteenP99)} | ${Math.round(r.sixteenReqPerSec)} | ${r.errors} | ${r.peakMiB.toFixed(0)} MiB |`),
    '',
    `Server RSS after the runs: ${memory.rssMiB.toFixed(0)} MiB; peak ${memory.peakMiB.toFixed(0)} MiB. Snapshot ${snapshot.id}, ${SECONDS} s per run, autocannon on the same machine.`,
  ].join('\n');
  console.log(table);
  await mkdir('bench/results', { recursive: true });
  await writeFile(join('bench/results', `serve-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify({ snapshot: snapshot.id, seconds: SECONDS, rows, memory }, null, 2));
} finally {
  child.kill('SIGTERM');
}
