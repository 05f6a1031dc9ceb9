/**
 * npm run bench:soak — `odsnap serve` at city scale (SOAK_SCALE=region for a region) for ten minutes as a public server lives:
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
 * SOAK_SECONDS (default 600) and SOAK_IDLE_SECONDS (default 120) shorten it for a try. The
 * steps are below; their parts are in bench/soak/: the data directory, the server and its memory,
 * the load (v1 and SQL in closed loops), the soak with its hot swap, and the report.
 */
import { join } from 'node:path';
import { addDays } from '../core/calendar.ts';
import { defaultSeed, defaultUntil } from '../datasets/vocabulary/sample.ts';
import { generatedOnce, percentile, sampleDataDir } from './city.ts';
import { agent, generatorReach } from './soak/client.ts';
import { soakDataDir } from './soak/data-dir.ts';
import { newTally, run, sqlRows, v1Requests } from './soak/load.ts';
import { reportSoak } from './soak/report.ts';
import { answering, startSoakServer } from './soak/server.ts';
import { IDLE_SECONDS, SCALE } from './soak/settings.ts';
import { soakWithSwap } from './soak/swap.ts';

// Two days of the sample: the first served from the start, the next swapped in half-way.
const first = await sampleDataDir(SCALE);
const next = await generatedOnce(join(process.cwd(), '.cache', 'bench', `${SCALE}-next`), { scale: SCALE, seed: defaultSeed, until: addDays(defaultUntil, 1) });
const data = await soakDataDir(first, next);
console.error(`soak at ${SCALE} scale: ${data.dir}, derived files in ${data.cache} (empty: the serving databases are built in the run)`);

const started = performance.now();
const server = startSoakServer(data);
const { memory } = server;
try {
  await answering(server);
  const startSeconds = (performance.now() - started) / 1000;
  console.error(`  answering after ${startSeconds.toFixed(1)} s (its serving database built)`);

  memory.phase = 'requests sampled';
  const v1 = await v1Requests(sqlRows);
  console.error(`  ${v1.length} v1 requests of every kind; idle run, ${IDLE_SECONDS} s…`);

  memory.phase = 'idle';
  const idle = newTally();
  await run(Date.now() + IDLE_SECONDS * 1000, v1, false, idle);

  memory.phase = 'load generator check';
  const medianBytes = Math.round(percentile(idle.v1Bytes, 50));
  const reach = await generatorReach(medianBytes, 15);
  console.error(
    `  load generator against a bare node:http server, ${medianBytes} B answers: ${Math.round(reach.reqPerSec)} req/s (the server idle: ${Math.round(idle.v1.length / IDLE_SECONDS)} req/s)`,
  );

  memory.phase = 'soak';
  const soaked = await soakWithSwap(data, v1, memory);

  await reportSoak({ startSeconds, idle, medianBytes, reach, soaked, memory, serverLog: server.log });
} finally {
  server.stop();
  agent.destroy();
}
