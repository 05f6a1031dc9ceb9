import { viewName } from '../../core/table.ts';
import { answerAs } from '../../datasets/answers/index.ts';
import { datasets } from '../../datasets/index.ts';
import { Random } from '../../datasets/vocabulary/random.ts';
import { scenarios, type Rows } from '../serve-requests.ts';
import { request } from './client.ts';
import { SQL_CONNECTIONS, V1_CONNECTIONS } from './settings.ts';

/** The soak's load: v1 requests of every kind and SQL queries, sent in closed loops, and what came back. */

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

/** Rows of a query to the server's SQL endpoint, to sample what to ask. */
export async function sqlRows(text: string): Promise<Rows> {
  const answer = await request(`/api/sql?q=${encodeURIComponent(text)}`, 60_000, true);
  if (answer.status !== 200) throw new Error(`sampling: ${answer.status} ${answer.body}`);
  return JSON.parse(answer.body).rows as Rows;
}

/** v1 requests of every kind: the heavy scenarios of bench:serve, every endpoint without a path value, and items by id. */
export async function v1Requests(sql: (text: string) => Promise<Rows>): Promise<string[]> {
  const heavy = Object.values(await scenarios(sql)).flat();
  const plain: string[] = [];
  const items: string[] = [];
  for (const dataset of datasets) {
    for (const endpoint of dataset.endpoints) {
      // Those that answer with no query at all (rides need a day).
      const answer = answerAs(endpoint.answer, 'item');
      if (!endpoint.pathParams.length) {
        if (endpoint.parse({}).success) plain.push(endpoint.fullPath);
      } else if (answer) {
        const column = answer.match[0]!;
        const table = dataset.resources[answer.resource]!.table;
        const ids = await sql(`SELECT DISTINCT ${column} AS id FROM ${viewName(dataset, table)} USING SAMPLE 50 ROWS`);
        items.push(...ids.map((row) => endpoint.fullPath.replace(`{${answer.param}}`, encodeURIComponent(String(row.id)))));
      }
    }
  }
  return [...heavy, ...plain, ...items];
}

export interface Tally {
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

export const newTally = (): Tally => ({ v1: [], v1Bytes: [], v1Failures: [], sql: new Map(), sqlFailures: [], fivexx: 0, requests: 0, lightTimedOut: 0 });

/** Closed loops until `until`: each connection sends its next request when the last is answered. */
export async function run(until: number, v1: readonly string[], withSql: boolean, tally: Tally): Promise<void> {
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
