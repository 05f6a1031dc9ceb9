import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw } from '../../fixtures/raw-http.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';
import { askSql, problem, SLOW, startLimitedServer, TIMEOUT_MS } from '../../fixtures/sql-endpoint.ts';

/** The SQL endpoint's limits: each query's deadline and memory, and the turns queries wait for. */

let server: TestServer;
beforeAll(async () => {
  server = await startLimitedServer();
});
afterAll(() => server.close());

const sql = (query: string, format = 'json') => askSql(server.url, query, format);

/** Sends `query` and notes when its answer came. */
const timed = async (query: string) => {
  const sent = performance.now();
  const response = await sql(query);
  return { response, ms: performance.now() - sent, at: performance.now() };
};

describe('SQL queries running at once', () => {
  it('each stop at their own deadline, however many run', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => timed(SLOW)));
    for (const { response, ms } of answers) {
      expect(response.status).toBe(400);
      expect(problem(response)).toMatchObject({ limit: 'time', detail: expect.stringMatching(/^the query ran past the time limit of 1.5 s and was stopped/) });
      // The deadline, and the time DuckDB takes to notice an interrupt; never the sum of the queries' times.
      expect(ms).toBeLessThan(TIMEOUT_MS + 2500);
    }
  });

  it('leave the v1 API answering while they run', async () => {
    const queries = [timed(SLOW), timed(SLOW)];
    await new Promise((resolve) => setTimeout(resolve, 200));
    const sent = performance.now();
    const response = await raw(`${server.url}/api/public/rcn/transactions?limit=1`);
    const v1At = performance.now();
    expect(response.status).toBe(200);
    const answered = await Promise.all(queries);
    // Answered while both queries still ran, not after them.
    for (const query of answered) expect(v1At).toBeLessThan(query.at);
    expect(v1At - sent).toBeLessThan(TIMEOUT_MS);
  });

  it('are turned away beyond those running and waiting, with 503, Retry-After and a problem body', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => sql(SLOW)));
    const turnedAway = answers.filter((response) => response.status === 503);
    expect(turnedAway).toHaveLength(1);
    expect(turnedAway[0]!.headers['retry-after']).toBe('1');
    expect(turnedAway[0]!.headers['content-type']).toBe('application/problem+json');
    expect(problem(turnedAway[0]!)).toMatchObject({ status: 503, detail: expect.stringMatching(/5 SQL queries are running or waiting/) });
    const refused = answers.filter((response) => response.status === 400).map(problem);
    expect(refused).toHaveLength(5);
    // Three of them waited for a turn, and say so.
    expect(refused.filter((p) => /spent waiting for a turn/.test(p.detail)).length).toBeGreaterThanOrEqual(3);
  });
});

describe('SQL values past what the process may hold', () => {
  const rss = () => process.memoryUsage().rss;

  it('are refused quickly with a 400 naming the memory limit, the server growing not at all', async () => {
    const before = rss();
    const response = await sql(`SELECT length(repeat('x', 2000000000)) AS l`);
    expect(response.status).toBe(400);
    expect(problem(response)).toMatchObject({ limit: 'memory', detail: expect.stringMatching(/memory/) });
    // Before: the server built the 2 GB string itself (4.1 GB peak RSS).
    expect(rss() - before).toBeLessThan(100 * 1024 * 1024);
  });

  it('four large ones at once leave the server as it was', async () => {
    const before = rss();
    const answers = await Promise.all(Array.from({ length: 4 }, () => sql(`SELECT repeat('x', 60000000) AS s`)));
    for (const response of answers) {
      expect(response.status).toBe(400);
      // Each is past a limit; which one first depends on the others (one out of memory beside another runs again, and four at once wait their turns within 1.5 s).
      expect(problem(response).limit).toMatch(/bytes|memory|time/);
    }
    expect(rss() - before).toBeLessThan(100 * 1024 * 1024);
    expect((await sql('SELECT 42 AS answer')).status).toBe(200);
  });
});
/** Sends a GET for `url` and closes the connection `after` ms later, without reading an answer. */
function abandon(url: string, after: number): Promise<void> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname, () => {
      socket.write(`GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\n\r\n`);
      setTimeout(() => (socket.destroy(), resolve()), after);
    });
    socket.on('error', reject);
  });
}

describe('SQL queries whose clients go away', () => {
  it('are stopped, and their turns given up, at once', async () => {
    // Two running and six waiting, as the endpoint's defaults, each with a deadline far off.
    const own = await startTestServer({ sql: { limits: { timeoutMs: 8000, maxRows: 1000, maxBytes: 1024 * 1024 } } });
    try {
      expect((await raw(`${own.url}/api/sql?q=SELECT+1`)).status).toBe(200);
      await Promise.all(Array.from({ length: 8 }, () => abandon(`${own.url}/api/sql?q=${encodeURIComponent(SLOW)}`, 500)));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const sent = performance.now();
      const response = await raw(`${own.url}/api/sql?q=SELECT+42+AS+answer`);
      expect(response.status, response.body.toString()).toBe(200);
      // Not the abandoned queries' deadline: they were stopped, not waited for.
      expect(performance.now() - sent).toBeLessThan(3000);
      // Interrupted in DuckDB, not stopped with their process.
      expect(own.logs.filter((line) => line.level === 'error' || line.event === 'sql-process-stopped')).toEqual([]);
    } finally {
      await own.close();
    }
  });
});

describe('a pattern DuckDB matches without looking for an interrupt', () => {
  // Matching backtracks through every way to place the wildcards: far longer than any deadline.
  const patterns = [
    `SELECT count(*) AS n FROM range(2) t(i) WHERE repeat('a', 3000) || i GLOB repeat('*a', 6) || 'b'`,
    `SELECT count(*) AS n FROM range(2) t(i) WHERE repeat('a', 3000) || i ILIKE repeat('%a', 6) || 'b'`,
  ];

  it.each(patterns)('is stopped with its process soon after its deadline: %s', async (query) => {
    // A process running, so that starting one is not in the time (the one before this test's was stopped).
    expect((await sql('SELECT 1')).status).toBe(200);
    const { response, ms } = await timed(query);
    expect(response.status).toBe(400);
    expect(problem(response).limit).toBe('time');
    expect(ms).toBeLessThan(TIMEOUT_MS + 2500);
  });
});
