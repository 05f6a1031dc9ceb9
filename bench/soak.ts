/**
 * npm run bench:soak — `odsnap serve` at city scale for ten minutes as a public server lives:
 * v1 requests of every kind on 12 connections, SQL queries on 4 more (light ones, and the abusive
 * ones of issue 28: past the time limit, past memory, huge values, self-joins, every odd type), and
 * a hot swap to the next day's snapshot half-way. The server starts on a snapshot whose serving
 * database does not exist yet (a fresh cache directory), and the next snapshot has none either, so
 * both database builds are inside the run. Before the soak, an idle run (the same v1 connections,
 * no SQL) gives the latencies to compare with, and the same client against a bare node:http
 * server answering the v1 answers' median size shows how far the load generator reaches beyond
 * the server.
 *
 * Reports requests, failures (no answer, or a status the request cannot have: v1 anything but
 * 200, SQL anything but 200 or 400), 5xx, v1 p50/p99 idle and under SQL load, SQL answers by
 * status and limit, and peak RSS, sampled together: the server's own process, its SQL processes,
 * and the processes building a snapshot's serving database. Targets: 0 failures, 0 5xx, v1 p50
 * under load ≤ 2× idle, the server's peak RSS < 512 MiB.
 *
 * SOAK_SECONDS (default 600) and SOAK_IDLE_SECONDS (default 120) shorten it for a try.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { Agent, get } from 'node:http';
import { join } from 'node:path';
import { addDays } from '../core/calendar.ts';
import { dataLayout } from '../core/snapshot/layout.ts';
import { makeCurrent } from '../core/snapshot/write.ts';
import { viewName } from '../core/table.ts';
import { datasets } from '../datasets/index.ts';
import { answerAs } from '../datasets/answers/index.ts';
import { defaultSeed, defaultUntil } from '../datasets/vocabulary/sample.ts';
import { Random } from '../datasets/vocabulary/random.ts';
import { cityDataDir, generatedOnce, ms, percentile } from './city.ts';
import { startBareServer } from './processes.ts';
import { scenarios, type Rows } from './serve-requests.ts';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const IDLE_SECONDS = Number(process.env.SOAK_IDLE_SECONDS ?? 120);
const V1_CONNECTIONS = 12;
const SQL_CONNECTIONS = 4;
const PORT = 4395;
const BARE_PORT = 4396;
const base = `http://127.0.0.1:${PORT}`;

/** SQL a public endpoint meets: what people ask, and what the careless and the hostile send. */
const SQL: { text: string; format?: string; abusive?: boolean }[] = [
  { text: 'SELECT count(*) AS rides FROM citybike_rides' },
  { text: 'SELECT market_type_code, count(*) AS n, avg(gross_price) AS mean FROM rcn_transactions GROUP BY ALL ORDER BY 1' },
  { text: 'SELECT * FROM bike_counter_counters', format: 'csv' },
  { text: 'SUMMARIZE air_quality_stations' },
  { text: 'SELECT * FROM air_quality_sensors', format: 'parquet' },
  { text: "SELECT date_trunc('month', started_at) AS month, count(*) AS rides FROM citybike_rides GROUP BY ALL ORDER BY 1", format: 'arrow' },
  { text: 'SELECT count(*) FROM range(30000000000) t(i) WHERE hash(i) = 0', abusive: true },
  { text: "SELECT length(repeat('x', 2000000000)) AS l", abusive: true },
  { text: "SELECT repeat('x', 60000000) AS s", abusive: true },
  { text: 'SELECT count(*) FROM air_quality_readings a JOIN air_quality_readings b USING (station_id)', abusive: true },
  { text: 'SELECT * FROM citybike_rides', abusive: true },
  { text: "SELECT INTERVAL 1 DAY AS i, MAP {'a': 1} AS m, '-infinity'::TIMESTAMP AS t, 'infinity'::DATE AS d", format: 'parquet', abusive: true },
  { text: "SELECT '-infinity'::TIMESTAMP AS t", format: 'arrow', abusive: true },
];

const agent = new Agent({ keepAlive: true, maxSockets: V1_CONNECTIONS + SQL_CONNECTIONS + 4 });

interface Answer {
  readonly status: number;
  readonly ms: number;
  readonly bytes: number;
  readonly body: string;
}

/** GETs a path over a keep-alive connection (of `to`, by default the server); the body is kept whole only when asked (the first 2,000 bytes otherwise). */
function request(path: string, timeoutMs = 60_000, whole = false, to = base): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = get(`${to}${path}`, { agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: response.statusCode!, ms: performance.now() - started, bytes: body.length, body: (whole ? body : body.subarray(0, 2000)).toString() });
      });
      response.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    req.on('error', reject);
  });
}

/** Resident memory, in KiB, of the server and of its descendants by what they do, read together. */
interface Memory {
  readonly server: number;
  /** Its SQL processes (server/sql/runner-process.ts). */
  readonly sql: number;
  /** Its serving-database builds (server/serve-database-process.ts). */
  readonly builder: number;
  readonly all: number;
}

const noMemory: Memory = { server: 0, sql: 0, builder: 0, all: 0 };
const maxMemory = (a: Memory, b: Memory): Memory => ({ server: Math.max(a.server, b.server), sql: Math.max(a.sql, b.sql), builder: Math.max(a.builder, b.builder), all: Math.max(a.all, b.all) });

async function treeRss(root: number): Promise<Memory> {
  const parents = new Map<number, number>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid) parents.set(Number(name), ppid);
  }
  const inTree = (pid: number): boolean => pid === root || (parents.has(pid) && pid !== 1 && inTree(parents.get(pid)!));
  const memory = { server: 0, sql: 0, builder: 0, all: 0 };
  for (const pid of [root, ...[...parents.keys()].filter((pid) => pid !== root && inTree(pid))]) {
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    const command = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    if (pid === root) memory.server = rss;
    else if (command.includes('runner-process')) memory.sql += rss;
    else if (command.includes('serve-database-process')) memory.builder += rss;
    memory.all += rss;
  }
  return memory;
}

/** The soak's data directory: both snapshots linked in, `current` on the first, nothing derived yet. */
async function soakDataDir(first: string, next: string): Promise<{ dir: string; cache: string; swap(): Promise<string> }> {
  const dir = join(process.cwd(), '.cache', 'bench', 'soak');
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, 'snapshots'), { recursive: true });
  const ids: string[] = [];
  for (const source of [first, next]) {
    const id = (await readlink(dataLayout(source).current)).split('/').pop()!;
    await symlink(dataLayout(source).snapshot(id), join(dir, 'snapshots', id));
    ids.push(id);
  }
  await symlink(`snapshots/${ids[0]}`, join(dir, 'current'));
  const cache = await mkdtemp(join(dir, 'cache-'));
  return {
    dir,
    cache,
    async swap() {
      // As a pull makes a snapshot current: a new link renamed over the old.
      await makeCurrent(dir, ids[1]!);
      return ids[1]!;
    },
  };
}

/** v1 requests of every kind: the heavy scenarios of bench:serve, every endpoint without a path value, and items by id. */
async function v1Requests(sql: (text: string) => Promise<Rows>): Promise<string[]> {
  const heavy = Object.values(await scenarios(sql)).flat();
  const plain: string[] = [];
  const items: string[] = [];
  for (const dataset of datasets) {
    for (const endpoint of dataset.endpoints) {
      // Those that answer with no query at all (rides need a day).
      const answer = answerAs(endpoint.answer, 'item');
      if (!endpoint.pathParams.length) {
        if (endpoint.parse({}).success) plain.push(endpoint.fullPath);
      }
      else if (answer) {
        const column = answer.match[0]!;
        const table = dataset.resources[answer.resource]!.table;
        const ids = await sql(`SELECT DISTINCT ${column} AS id FROM ${viewName(dataset, table)} USING SAMPLE 50 ROWS`);
        items.push(...ids.map((row) => endpoint.fullPath.replace(`{${answer.param}}`, encodeURIComponent(String(row.id)))));
      }
    }
  }
  return [...heavy, ...plain, ...items];
}

interface Tally {
  v1: number[];
  /** Body sizes of the v1 answers. */
  v1Bytes: number[];
  v1Failures: string[];
  sql: Map<string, number>;
  sqlFailures: string[];
  fivexx: number;
  requests: number;
  /** Light queries stopped at the time limit, mostly spent waiting for a turn behind abusive ones. */
  lightTimedOut: number;
}

const newTally = (): Tally => ({ v1: [], v1Bytes: [], v1Failures: [], sql: new Map(), sqlFailures: [], fivexx: 0, requests: 0, lightTimedOut: 0 });

/** Closed loops until `until`: each connection sends its next request when the last is answered. */
async function run(until: number, v1: readonly string[], withSql: boolean, tally: Tally): Promise<void> {
  const random = new Random(`soak-${withSql}`);
  const v1Loop = async () => {
    while (Date.now() < until) {
      const path = random.pick(v1);
      tally.requests++;
      try {
        const answer = await request(path);
        if (answer.status >= 500) tally.fivexx++;
        if (answer.status !== 200) tally.v1Failures.push(`${answer.status} ${path}: ${answer.body.slice(0, 200)}`);
        else {
          tally.v1.push(answer.ms);
          tally.v1Bytes.push(answer.bytes);
        }
      } catch (error) {
        tally.v1Failures.push(`${path}: ${(error as Error).message}`);
      }
    }
  };
  const sqlLoop = async () => {
    while (Date.now() < until) {
      const query = random.pick(SQL);
      const path = `/api/sql?format=${query.format ?? 'json'}&q=${encodeURIComponent(query.text)}`;
      tally.requests++;
      try {
        const answer = await request(path);
        if (answer.status >= 500) tally.fivexx++;
        const limit = answer.status === 400 ? (JSON.parse(answer.body).limit ?? 'other') : '';
        const key = `${answer.status}${limit ? ` ${limit}` : ''}`;
        tally.sql.set(key, (tally.sql.get(key) ?? 0) + 1);
        if (answer.status !== 200 && answer.status !== 400) tally.sqlFailures.push(`${answer.status} ${query.text}: ${answer.body.slice(0, 200)}`);
        // A light query may spend its time waiting behind abusive ones: bounded capacity, not a failure; counted apart.
        if (answer.status === 400 && !query.abusive) {
          if (limit === 'time') tally.lightTimedOut++;
          else tally.sqlFailures.push(`400 for a light query ${query.text}: ${answer.body.slice(0, 200)}`);
        }
      } catch (error) {
        tally.sqlFailures.push(`${query.text}: ${(error as Error).message}`);
      }
    }
  };
  await Promise.all([...Array.from({ length: V1_CONNECTIONS }, v1Loop), ...(withSql ? Array.from({ length: SQL_CONNECTIONS }, sqlLoop) : [])]);
}

/**
 * The same client (12 closed loops, this process) against a bare node:http server answering the
 * v1 answers' median size from memory: how far the load generator reaches beyond the server.
 */
async function generatorReach(bytes: number, seconds: number): Promise<{ reqPerSec: number; p50: number }> {
  const bare = await startBareServer(BARE_PORT);
  try {
    const until = Date.now() + seconds * 1000;
    const times: number[] = [];
    await Promise.all(
      Array.from({ length: V1_CONNECTIONS }, async () => {
        while (Date.now() < until) times.push((await request(`/${bytes}`, 10_000, false, `http://127.0.0.1:${BARE_PORT}`)).ms);
      }),
    );
    return { reqPerSec: times.length / seconds, p50: percentile(times, 50) };
  } finally {
    bare.kill('SIGTERM');
  }
}

const first = await cityDataDir();
const next = await generatedOnce(join(process.cwd(), '.cache', 'bench', 'city-next'), { scale: 'city', seed: defaultSeed, until: addDays(defaultUntil, 1) });
const data = await soakDataDir(first, next);
console.error(`soak: ${data.dir}, derived files in ${data.cache} (empty: the serving databases are built in the run)`);

const started = performance.now();
const server = spawn(process.execPath, ['bin/odsnap.js', 'serve', '--data', data.dir, '--port', String(PORT), '--quiet', '--static', join(data.dir, 'no-tree')], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, ODSNAP_CACHE_DIR: data.cache },
});
const serverLog: string[] = [];
server.stdout!.on('data', (chunk: Buffer) => serverLog.push(...chunk.toString().trim().split('\n')));
let peak = noMemory;
let phase = 'first start';
const peaks: Record<string, Memory> = {};
const sampler = setInterval(async () => {
  const now = await treeRss(server.pid!).catch(() => noMemory);
  peak = maxMemory(peak, now);
  peaks[phase] = maxMemory(peaks[phase] ?? noMemory, now);
}, 100);

try {
  for (;;) {
    if (server.exitCode !== null) throw new Error('odsnap serve exited before it answered');
    if ((await request('/healthz', 2000).catch(() => undefined))?.status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const startSeconds = (performance.now() - started) / 1000;
  console.error(`  answering after ${startSeconds.toFixed(1)} s (its serving database built)`);

  phase = 'requests sampled';
  const sql = async (text: string) => {
    const answer = await request(`/api/sql?q=${encodeURIComponent(text)}`, 60_000, true);
    if (answer.status !== 200) throw new Error(`sampling: ${answer.status} ${answer.body}`);
    return JSON.parse(answer.body).rows as Rows;
  };
  const v1 = await v1Requests(sql);
  console.error(`  ${v1.length} v1 requests of every kind; idle run, ${IDLE_SECONDS} s…`);

  phase = 'idle';
  const idle = newTally();
  await run(Date.now() + IDLE_SECONDS * 1000, v1, false, idle);

  phase = 'load generator check';
  const medianBytes = Math.round(percentile(idle.v1Bytes, 50));
  const reach = await generatorReach(medianBytes, 15);
  console.error(`  load generator against a bare node:http server, ${medianBytes} B answers: ${Math.round(reach.reqPerSec)} req/s (the server idle: ${Math.round(idle.v1.length / IDLE_SECONDS)} req/s)`);

  phase = 'soak';
  const soak = newTally();
  const cpuBefore = process.cpuUsage();
  const soakStarted = Date.now();
  let swapped: { after: number; answeringAfter?: number } | undefined;
  const swap = (async () => {
    await new Promise((resolve) => setTimeout(resolve, (SECONDS * 1000) / 2));
    phase = 'soak, hot swap';
    const id = await data.swap();
    const at = Date.now();
    swapped = { after: (at - soakStarted) / 1000 };
    console.error(`  hot swap to ${id} after ${swapped.after.toFixed(0)} s…`);
    for (;;) {
      const health = await request('/healthz', 5000).catch(() => undefined);
      if (health && JSON.parse(health.body).snapshot === id) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    swapped.answeringAfter = (Date.now() - at) / 1000;
    console.error(`  the new snapshot answers ${swapped.answeringAfter.toFixed(1)} s later`);
    phase = 'soak, after the swap';
  })();
  console.error(`  soak: ${V1_CONNECTIONS} v1 + ${SQL_CONNECTIONS} SQL connections, ${SECONDS} s…`);
  await run(soakStarted + SECONDS * 1000, v1, true, soak);
  await swap;
  const cpu = process.cpuUsage(cpuBefore);
  const loadGeneratorCores = (cpu.user + cpu.system) / 1000 / (Date.now() - soakStarted);

  const failures = [...soak.v1Failures, ...soak.sqlFailures, ...idle.v1Failures];
  const idleP50 = percentile(idle.v1, 50);
  const soakP50 = percentile(soak.v1, 50);
  const MiB = (kib: number) => `${(kib / 1024).toFixed(0)} MiB`;
  const lines = [
    '| | idle (v1 only) | soak (v1 + SQL, hot swap) |',
    '| --- | --- | --- |',
    `| seconds | ${IDLE_SECONDS} | ${SECONDS} |`,
    `| requests | ${idle.requests} | ${soak.requests} (${soak.v1.length + soak.v1Failures.length} v1, ${[...soak.sql.values()].reduce((a, b) => a + b, 0)} SQL) |`,
    `| failures | ${idle.v1Failures.length} | ${soak.v1Failures.length + soak.sqlFailures.length} |`,
    `| 5xx | ${idle.fivexx} | ${soak.fivexx} |`,
    `| v1 p50 / p99 ms | ${ms(idleP50)} / ${ms(percentile(idle.v1, 99))} | ${ms(soakP50)} / ${ms(percentile(soak.v1, 99))} |`,
    `| v1 p50 ÷ idle | | ${(soakP50 / idleP50).toFixed(2)}× (target ≤ 2×) |`,
    `| v1 req/s | ${Math.round(idle.v1.length / IDLE_SECONDS)} | ${Math.round(soak.v1.length / SECONDS)} |`,
    `| SQL answers | | ${[...soak.sql.entries()].sort().map(([key, n]) => `${key}: ${n}`).join(', ')} (of the 400 time, ${soak.lightTimedOut} light queries that waited behind abusive ones) |`,
    '',
    `Peak RSS over the whole run: the server ${MiB(peak.server)} (target < 512 MiB); its SQL processes ${MiB(peak.sql)} together (each capped at 320 MiB of data); its serving-database builds ${MiB(peak.builder)}; all at once ${MiB(peak.all)}. By phase (server / SQL / builds): ${Object.entries(peaks).map(([name, p]) => `${name} ${MiB(p.server)} / ${MiB(p.sql)} / ${MiB(p.builder)}`).join('; ')}.`,
    `First start (serving database built) answered after ${startSeconds.toFixed(1)} s; hot swap after ${swapped?.after.toFixed(0)} s, the new snapshot answering ${swapped?.answeringAfter?.toFixed(1)} s later. Load generator: ${loadGeneratorCores.toFixed(2)} cores of 2 during the soak (closed loops, ${V1_CONNECTIONS + SQL_CONNECTIONS} connections); the same client against a bare node:http server answering ${medianBytes} B (the v1 median) reached ${Math.round(reach.reqPerSec)} req/s, p50 ${ms(reach.p50)} ms, in this run.`,
  ];
  console.log(lines.join('\n'));
  if (failures.length) console.log(`\nFailures (first 10):\n${failures.slice(0, 10).map((f) => `- ${f}`).join('\n')}`);
  await mkdir('bench/results', { recursive: true });
  await writeFile(
    join('bench/results', `soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
    JSON.stringify({ seconds: SECONDS, idleSeconds: IDLE_SECONDS, startSeconds, generatorReach: { bytes: medianBytes, ...reach }, swapped, loadGeneratorCores, peakKiB: peak, peaksKiB: peaks, idle: { ...idle, v1: undefined, v1Bytes: undefined, p50: idleP50, p99: percentile(idle.v1, 99) }, soak: { ...soak, v1: undefined, v1Bytes: undefined, sql: Object.fromEntries(soak.sql), p50: soakP50, p99: percentile(soak.v1, 99) }, serverEvents: serverLog.filter((line) => line.includes('"event"')).slice(-50) }, null, 2),
  );
} finally {
  clearInterval(sampler);
  server.kill('SIGTERM');
  agent.destroy();
}

