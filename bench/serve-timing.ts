import { Agent, get } from 'node:http';
import type { DuckDBPreparedStatement, DuckDBValue } from '@duckdb/node-api';
import { renderContext } from '../datasets/vocabulary/render.ts';
import { datasets } from '../datasets/index.ts';
import { kindOf } from '../datasets/answers/index.ts';
import { createRouter } from '../datasets/vocabulary/router.ts';
import type { ServedSnapshot } from '../server/served-snapshot.ts';
import type { StatementRunner } from '../datasets/answers/serving.ts';
import { asJsonRows } from '../core/db/duckdb.ts';
import { percentile } from './city.ts';
import type { Measured } from './wrk.ts';

/**
 * How bench:serve times a request: paired, in this process, straight in DuckDB (the statements the
 * server runs for it) and over HTTP from the server and the bare server (see serve.ts), and the
 * same statements under load, 16 at a time, as wrk's reference.
 */

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
export const PORT = 4391;
export const BARE_PORT = 4392;
export const BODIES_PORT = 4393;
export const PEER_PORT = 4394;

const route = createRouter(datasets);

/** One keep-alive connection to each server, so a request's time is the server's and not a TCP handshake. */
export const agent = new Agent({ keepAlive: true, maxSockets: 1 });
export const bareAgent = new Agent({ keepAlive: true, maxSockets: 1 });

/** Times one request over HTTP until the last byte of the body; returns the time and the body's length. */
async function httpOnce(port: number, path: string, via: Agent): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  let bytes = 0;
  const status = await new Promise<number>((resolve, reject) => {
    get({ host: '127.0.0.1', port, path, agent: via }, (response) => {
      response
        .on('data', (chunk: Buffer) => (bytes += chunk.length))
        .on('end', () => resolve(response.statusCode ?? 0))
        .on('error', reject);
    }).on('error', reject);
  });
  if (status !== 200) throw new Error(`${path} answered ${status}`);
  return { ms: performance.now() - started, bytes };
}

/**
 * Times one request straight in DuckDB and over HTTP. Raw: the statements the server runs for it,
 * prepared once (as the server keeps them prepared), each result's chunks read out. Three raw runs
 * back to back first, then three pairs of a raw run and a request, alternating: DuckDB takes
 * longer for a statement after its threads have idled (a transaction by id, say), and a server always idles between its statements, so the
 * ratio is taken against the alternating runs, where each side idles while the other works.
 * The bare server's answer of the same length takes its turn in each round. Medians of three.
 */
export type Statements = [string, readonly DuckDBValue[]][];

export async function timeRequest(
  served: ServedSnapshot,
  path: string,
): Promise<{ backToBack: number; raw: number; server: number; bare: number; statements: Statements }> {
  const url = new URL(path, 'http://bench.invalid');
  const found = route(url.pathname)!;
  const params = found.endpoint.parse({ ...Object.fromEntries(url.searchParams), ...found.params }).data!;
  const statements: Statements = [];
  return served.use(async (connection) => {
    const recorder: StatementRunner = {
      rows: (sql, values = [], reading = 'columns') => (
        statements.push([reading === 'json' ? asJsonRows(sql) : sql, values]), connection.rows(sql, values, reading)
      ),
    };
    const { dataset, endpoint } = found;
    await kindOf(endpoint.answer).server.serve(
      {
        served: served.tables,
        dataset,
        endpoint,
        path: url.pathname,
        params,
        query: Object.fromEntries(url.searchParams),
        context: renderContext({ baseUrl: 'http://bench' }),
        base: 'http://bench',
        connection: recorder,
      },
      endpoint.answer,
    );
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
    // An item from its record file runs no statement: there is no raw DuckDB to compare with.
    const ranNone = prepared.length === 0;
    const backToBack = ranNone ? [NaN] : [await rawOnce(), await rawOnce(), await rawOnce()];
    const raw: number[] = [];
    const server: number[] = [];
    const bare: number[] = [];
    for (let run = 0; run < 3; run++) {
      raw.push(ranNone ? NaN : await rawOnce());
      const answered = await httpOnce(PORT, path, agent);
      server.push(answered.ms);
      bare.push((await httpOnce(BARE_PORT, `/${answered.bytes}`, bareAgent)).ms);
    }
    return { backToBack: percentile(backToBack, 50), raw: percentile(raw, 50), server: percentile(server, 50), bare: percentile(bare, 50), statements };
  });
}

/**
 * The reference for the 16-connection figures: the same requests' statements run straight in
 * DuckDB, 16 at a time, for as long as wrk runs, through a pool of connections like the
 * server's (each statement prepared once per connection, its chunks read out), and how long each
 * took including its wait for a connection. What this gives is what DuckDB alone allows on this
 * machine, with 16 requests in flight.
 */
export async function rawLoad(served: ServedSnapshot, requests: readonly Statements[]): Promise<Measured> {
  // Requests answered without a statement (items from their record files) have nothing to run here.
  requests = requests.filter((statements) => statements.length > 0);
  if (!requests.length) return { p50: NaN, p99: NaN, reqPerSec: NaN };
  const prepared = new Map<unknown, Map<string, DuckDBPreparedStatement>>();
  const times: number[] = [];
  const until = performance.now() + SECONDS * 1000;
  // Each in flight goes through the requests in order from the first, as each of wrk's connections does.
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
