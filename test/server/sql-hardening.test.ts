import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { homedir, hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPython } from '../fixtures/python.ts';
import { raw, type RawResponse } from '../fixtures/raw-http.ts';
import { startTestServer, type TestServer } from '../fixtures/server.ts';
import { typeHint } from '../../server/sql/export.ts';
import { tinySnapshot } from '../fixtures/tiny.ts';

/** The SQL endpoint as a hostile or careless user meets it: many slow queries, huge values, odd types, probes for the machine. */

const TIMEOUT_MS = 1500;
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ sql: { limits: { timeoutMs: TIMEOUT_MS, maxRows: 1000, maxBytes: 1024 * 1024 }, running: 2, waiting: 3 } });
});
afterAll(() => server.close());

const sql = (query: string, format = 'json') => raw(`${server.url}/api/sql?format=${format}&q=${encodeURIComponent(query)}`);
const problem = (response: RawResponse) => JSON.parse(response.body.toString()) as { status: number; detail: string; limit?: string; type: string };
const SLOW = 'SELECT count(*) FROM range(30000000000) t(i) WHERE hash(i) = 0';

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

/** The pids of the SQL processes this test process started (see server/sql/runner.ts), not other test files'. */
async function sqlProcesses(): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const command = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (command.includes('runner-process.ts') && parent === process.pid) found.push(Number(name));
  }
  return found;
}

describe('the first queries on a snapshot, sent at once', () => {
  it('start one SQL process between them, not one each', async () => {
    const before = (await sqlProcesses()).length;
    const fresh = await startTestServer();
    try {
      const answers = await Promise.all(Array.from({ length: 4 }, () => raw(`${fresh.url}/api/sql?q=SELECT+42+AS+answer`)));
      for (const response of answers) expect(response.status).toBe(200);
      expect((await sqlProcesses()).length - before).toBe(1);
    } finally {
      await fresh.close();
    }
  });
});

describe('an SQL process that dies under running queries', () => {
  it('runs them again in a new one, within their own deadlines', async () => {
    // A server of its own with a deadline two runs fit in on a loaded machine (the suite runs files side by side).
    const own = await startTestServer({ sql: { limits: { timeoutMs: 8000, maxRows: 1000, maxBytes: 1024 * 1024 }, running: 2, waiting: 3 } });
    try {
      const ask = (query: string) => raw(`${own.url}/api/sql?format=json&q=${encodeURIComponent(query)}`);
      // Its SQL process started and ready, so that the kill finds the queries running, not the process starting.
      expect((await ask('SELECT 1')).status).toBe(200);
      const busy = 'SELECT count(*) AS n FROM range(150000000) t(i) WHERE i % 7 = 0';
      const queries = [ask(busy), ask(busy)];
      await new Promise((resolve) => setTimeout(resolve, 300));
      const pids = await sqlProcesses();
      expect(pids.length).toBeGreaterThan(0);
      for (const pid of pids) process.kill(pid, 'SIGKILL');
      for (const response of await Promise.all(queries)) {
        expect(response.status, response.body.toString()).toBe(200);
        expect(JSON.parse(response.body.toString()).rows[0].n).toBe(21428572);
      }
      // They were running there when it died, and ran again in another.
      expect(own.logs.find((line) => line.event === 'sql-process-ended')).toMatchObject({ jobs: 2, signal: 'SIGKILL' });
    } finally {
      await own.close();
    }
  });
});

describe('a query left running in a process where an allocation failed', () => {
  it('is not blamed when that process dies under it: it runs again, alone, and answers', async () => {
    const light = sql('SELECT count(*) AS n FROM range(150000000) t(i) WHERE i % 7 = 0');
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Beside it, a value past what the process may hold: refused, and the process is no longer trusted.
    const huge = sql(`SELECT length(repeat('x', 2000000000)) AS l`);
    const untrusted = await until(() => server.logs.find((line) => line.event === 'sql-process-untrusted'));
    // The light query is still running there when that process dies.
    expect(untrusted.jobs).toBe(1);
    process.kill(untrusted.pid as number, 'SIGKILL');
    expect(problem(await huge).limit).toBe('memory');
    const answer = await light;
    expect(answer.status, answer.body.toString()).toBe(200);
    expect(JSON.parse(answer.body.toString()).rows[0].n).toBe(21428572);
    expect(server.logs.find((line) => line.event === 'sql-process-ended' && line.pid === untrusted.pid)).toMatchObject({ jobs: 1, signal: 'SIGKILL' });
  });
});

/** Waits for `found` to find something, checking every 5 ms, for up to 10 s. */
async function until<T>(found: () => T | undefined | Promise<T | undefined>): Promise<T> {
  for (let waited = 0; waited < 10_000; waited += 5) {
    const value = await found();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('not found within 10 s');
}

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

describe('every DuckDB type', () => {
  /** Values whose types the formats used to fail on, and what DuckDB says of each read back. */
  const values: [string, string][] = [
    [`INTERVAL 1 DAY`, '1 day'],
    [`MAP {'a': 1}`, '{a=1}'],
    // Parquet has no union: DuckDB writes its tag and value.
    [`union_value(k := 1)`, '(0, 1)'],
    [`'0101'::BIT`, '0101'],
    [`'12345678901234567890123456789'::BIGNUM`, '12345678901234567890123456789'],
    [`'infinity'::DATE`, 'infinity'],
    [`'-infinity'::DATE`, '-infinity'],
    [`'-infinity'::TIMESTAMP`, '-infinity'],
    [`'infinity'::TIMESTAMPTZ`, 'infinity'],
    [`'-infinity'::TIMESTAMP_MS`, '-infinity'],
  ];
  let scratch: string;
  beforeAll(async () => (scratch = await mkdtemp(join(tmpdir(), 'odsnap-types-'))));
  afterAll(() => rm(scratch, { recursive: true, force: true }));

  it.each(values)('%s converts in every format', async (expression, text) => {
    for (const format of ['json', 'csv', 'parquet', 'arrow']) {
      const response = await sql(`SELECT ${expression} AS x`, format);
      expect(response.status, `${format}: ${response.body.toString().slice(0, 300)}`).toBe(200);
    }
    if (/infinity/.test(text)) {
      expect(JSON.parse((await sql(`SELECT ${expression} AS x`)).body.toString()).rows[0].x).toBe(text);
      expect((await sql(`SELECT ${expression} AS x`, 'csv')).body.toString()).toBe(`x\r\n${text}\r\n`);
    }
    const parquet = join(scratch, 'x.parquet');
    await writeFile(parquet, (await sql(`SELECT ${expression} AS x`, 'parquet')).body);
    expect((await runPython<{ x: string[] }>('read_result.py', parquet, 'parquet')).x).toEqual([text]);
    if (/infinity/.test(text)) {
      // Arrow has no infinity: written as DuckDB stores it, so DuckDB reads it back as one.
      const arrow = join(scratch, 'x.arrow');
      await writeFile(arrow, (await sql(`SELECT ${expression} AS x`, 'arrow')).body);
      expect((await runPython<{ x: string[] }>('read_result.py', arrow, 'arrow')).x).toEqual([text]);
    }
  });

  it('a type a format cannot hold is refused with a 400 naming the column and its type', async () => {
    const response = await sql(`SELECT 1 AS fine, '-infinity'::TIMESTAMP_S AS far`, 'parquet');
    expect(response.status).toBe(400);
    expect(problem(response).detail).toMatch(/"far" \(TIMESTAMP_S\)/);
  });
});

describe('the machine behind the endpoint', () => {
  const secrets = () => [tmpdir(), homedir(), hostname(), server.host.current.snapshot.dir, 'spill-'];
  const denied = [
    `SELECT current_setting('temp_directory')`,
    `SELECT current_setting('secret_directory')`,
    `SELECT "CURRENT_SETTING"('allowed_directories')`,
    `SELECT * FROM duckdb_settings()`,
    `SELECT sql FROM duckdb_views()`,
    `SELECT sql FROM duckdb_views`,
    `SELECT view_definition FROM information_schema.views`,
    `SELECT sql FROM sqlite_master`,
    `SELECT * FROM duckdb_extensions()`,
    `SELECT * FROM duckdb_databases()`,
    `SELECT * FROM duckdb_temporary_files()`,
    `SELECT * FROM query('SELECT current_setting(''temp_directory'')')`,
    `WITH s AS (SELECT current_setting('temp_directory') AS t) SELECT replace(t, '/', '|') FROM s`,
  ];

  it.each(denied)('is not shown by %s', async (query) => {
    const response = await sql(query);
    expect(response.status).toBe(400);
    expect(problem(response).detail).toMatch(/is not available here/);
  });

  const answered = [
    `SELECT * FROM read_parquet('nothere/*.parquet')`,
    `SELECT * FROM read_parquet('${'/'}nonexistent/*.parquet')`,
    `SELECT filename FROM read_parquet('**/*.parquet', filename = true) LIMIT 3`,
    `SELECT * FROM glob('**') LIMIT 5`,
    `SELECT * FROM rcn_transactionz`,
  ];

  it.each(answered)('is not in the answer to %s, or its error', async (query) => {
    const body = (await sql(query)).body.toString();
    for (const secret of secrets()) expect(body).not.toContain(secret);
  });

  it('lets the snapshot itself be read by relative paths', async () => {
    const snapshot = await tinySnapshot();
    const response = await sql(`SELECT count(*) AS n FROM read_parquet('rcn/transactions/**/*.parquet')`);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body.toString()).rows[0].n).toBe(snapshot.manifest.datasets.rcn!.tables.transactions!.rows);
  });
});

describe('a result that cannot be written to its file', () => {
  const columns = [{ name: 'legend', type: 'STRUCT(label VARCHAR)[]' }, { name: 'n', type: 'INTEGER' }];

  it('names the columns whose type the format may not hold when the type may be why', () => {
    expect(typeHint('Conversion Error: timestamp out of range', columns, 'parquet')).toBe('Conversion Error: timestamp out of range; of the columns, "legend" (STRUCT(label VARCHAR)[]) may not fit Parquet: cast to VARCHAR');
    expect(typeHint('Conversion Error: timestamp out of range', [columns[1]!], 'parquet')).toBeUndefined();
  });

  it('says nothing of types when the query ran out of memory or was stopped, so that it is refused as such', () => {
    // The soak met it: a light query out of memory beside an abusive one was told to cast its column, and not run again alone.
    expect(typeHint('Out of Memory Error: Failed to allocate block of 32768 bytes (bad allocation)', columns, 'json')).toBeUndefined();
    expect(typeHint('INTERRUPT Error: Interrupted!', columns, 'json')).toBeUndefined();
  });
});

/** The files in the result directories of this process's servers (see runner.ts), by name, and their sizes. */
async function resultFiles(): Promise<Map<string, number>> {
  const parent = join(tmpdir(), 'odsnap');
  const sizes = new Map<string, number>();
  for (const dir of await readdir(parent).catch(() => [])) {
    if (!dir.startsWith(`spill-${hostname()}-${process.pid}-`)) continue;
    for (const name of await readdir(join(parent, dir)).catch(() => [])) sizes.set(name, (await stat(join(parent, dir, name)).catch(() => undefined))?.size ?? 0);
  }
  return sizes;
}

describe('the result files of queries that do not answer', () => {
  const MAX_BYTES = 1024 * 1024;
  // Rows enough to meet the byte limit before the row limit.
  const limits = { timeoutMs: 4000, maxRows: 100_000, maxBytes: MAX_BYTES };
  /** Past the byte limit in every format; numbers in many named columns are far longer as JSON or CSV than as values. */
  const wide = `SELECT x AS first_column, x + 1 AS second_column, x + 2 AS third_column, x + 3 AS fourth_column FROM range(90000) t(x)`;
  /** 16 MB as Parquet: random numbers hardly compress. */
  const incompressible = `SELECT ${Array.from({ length: 24 }, (_, i) => `random() AS r${i}`).join(', ')} FROM range(90000) t(x)`;
  const refused: [string, string][] = [
    ...['json', 'csv', 'arrow'].map((format): [string, string] => [wide, format]),
    [incompressible, 'parquet'],
    [`SELECT * FROM range(200000)`, 'json'],
    [`SELECT count(*) FROM range(30000000000) t(i) WHERE hash(i) = 0`, 'json'],
    [`SELECT length(repeat('x', 2000000000)) AS l`, 'csv'],
    [`SELECT CASE WHEN x < 200 THEN x ELSE error('boom') END AS v FROM range(300) t(x)`, 'json'],
  ];

  it('are removed however the query ends, while the server runs, and never grow past the byte limit', async () => {
    const own = await startTestServer({ sql: { limits } });
    /** The largest result file seen, by format. */
    const largest: Record<string, number> = {};
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        for (const [name, size] of await resultFiles()) {
          const format = name.split('.').at(-1)!;
          largest[format] = Math.max(largest[format] ?? 0, size);
        }
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    try {
      for (const [query, format] of refused) {
        const response = await raw(`${own.url}/api/sql?format=${format}&q=${encodeURIComponent(query)}`);
        expect(response.status, `${format}: ${query}`).toBe(400);
      }
      // A process killed under its query, which then runs again and is killed again.
      const killed = raw(`${own.url}/api/sql?q=${encodeURIComponent(`SELECT x, repeat('y', 1000) AS y FROM range(100000000) t(x) WHERE x % 100 = 0`)}`);
      for (let kills = 0; kills < 2; kills++) {
        await new Promise((resolve) => setTimeout(resolve, 700));
        for (const pid of await sqlProcesses()) process.kill(pid, 'SIGKILL');
      }
      expect((await killed).status).not.toBe(200);
      watching = false;
      await watcher;
      expect([...(await resultFiles())]).toEqual([]);
      // JSON, CSV and Arrow are refused before a write would pass the limit.
      for (const format of ['json', 'csv', 'arrow']) expect(largest[format] ?? 0, format).toBeLessThanOrEqual(MAX_BYTES);
      // Parquet, which DuckDB writes, is stopped as it passes it: far short of its 16 MB.
      expect(largest.parquet).toBeGreaterThan(0);
      expect(largest.parquet).toBeLessThanOrEqual(4 * MAX_BYTES);
    } finally {
      watching = false;
      await own.close();
    }
  });
});

describe('spill and result directories of processes that are gone', () => {
  it('are removed when a server starts, before any query', async () => {
    const ended = spawnSync(process.execPath, ['-e', '']).pid;
    const left = join(tmpdir(), 'odsnap', `spill-${hostname()}-${ended}-abcdef`);
    await mkdir(left, { recursive: true });
    await writeFile(join(left, '7.json'), 'x'.repeat(4096));
    const own = await startTestServer();
    try {
      await until(() => (existsSync(left) ? undefined : true));
    } finally {
      await own.close();
    }
  });

  it("are removed when an SQL process is killed: its DuckDB's own", async () => {
    const own = await startTestServer();
    try {
      const before = new Set(await sqlProcesses());
      expect((await raw(`${own.url}/api/sql?q=SELECT+1`)).status).toBe(200);
      const [pid] = (await sqlProcesses()).filter((pid) => !before.has(pid));
      const spill = async () => (await readdir(join(tmpdir(), 'odsnap'))).filter((name) => name.startsWith(`spill-${hostname()}-${pid}-`));
      expect(await spill()).toHaveLength(1);
      process.kill(pid!, 'SIGKILL');
      await until(async () => ((await spill()).length ? undefined : true));
    } finally {
      await own.close();
    }
  });
});

describe('a query DuckDB fails partway through its rows', () => {
  it('is refused, not answered 200 with the rows before the failure', async () => {
    const own = await startTestServer({ sql: { limits: { timeoutMs: 8000, maxRows: 300_000, maxBytes: 16 * 1024 * 1024 } } });
    try {
      // Failing past what DuckDB reads ahead (about 1 MB), so that rows before the failure are already sent on when it comes.
      const query = `SELECT CASE WHEN x < 200000 THEN x ELSE error('boom') END AS v FROM range(250000) t(x)`;
      for (const format of ['json', 'csv', 'arrow']) {
        const response = await raw(`${own.url}/api/sql?format=${format}&q=${encodeURIComponent(query)}`);
        expect(response.status, `${format}: ${response.body.subarray(0, 200).toString()}`).toBe(400);
        expect(problem(response).detail).toMatch(/partway through its result/);
      }
    } finally {
      await own.close();
    }
  });
});

describe('SQL answers under a load that kills the SQL process', () => {
  const ROWS = 3000;
  /** What a 200 must hold: every row the query promises, in a body that parses whole. */
  const whole = (body: string, format: string) => (format === 'json' ? JSON.parse(body).rows.length === ROWS : body.endsWith('\r\n') && body.split('\r\n').length === ROWS + 2);

  it('are whole when they are 200s, with every row the query promises, and problems otherwise', { timeout: 300_000 }, async () => {
    // A process with less room than the endpoint's, which such a load fills (its process then dies of it, or DuckDB fails an allocation);
    // a deadline that leaves the time to the load, not to the machine running it.
    const own = await startTestServer({
      sql: { limits: { timeoutMs: 30_000, maxRows: 100_000, maxBytes: 64 * 1024 * 1024 }, runner: { memoryLimit: '64MB', processMemory: 240 * 1024 * 1024 } },
    });
    // Past every limit, so only ever refused: the reviewer's query, which made the process die of its memory cap.
    const unbounded = `SELECT x, repeat('y', 1000) AS y FROM generate_series(1, 1000000000000) t(x)`;
    const promised = `SELECT x, repeat('y', 1000) AS y FROM range(${ROWS}) t(x)`;
    const outcomes: Record<string, number> = {};
    const send = async (query: string, format: string) => {
      for (let round = 0; round < 2; round++) {
        const response = await raw(`${own.url}/api/sql?format=${format}&q=${encodeURIComponent(query)}`);
        const outcome =
          response.status === 200 ? (query === promised && whole(response.body.toString(), format) ? '200 whole' : '200 cut short')
          : response.headers['content-type'] === 'application/problem+json' && problem(response).status === response.status ? `${response.status} problem`
          : `${response.status} other`;
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      }
    };
    try {
      await Promise.all(['json', 'csv', 'json', 'csv'].flatMap((format) => [send(unbounded, format), send(promised, format)]));
      expect(Object.keys(outcomes).filter((outcome) => !/^(200 whole|400 problem|503 problem)$/.test(outcome)), JSON.stringify(outcomes)).toEqual([]);
      expect(outcomes['200 whole'], JSON.stringify(outcomes)).toBeGreaterThan(0);
      // The load did what it is here for: the process died of its memory cap, or an allocation failed in it.
      expect(own.logs.some((line) => line.event === 'sql-process-ended' || line.event === 'sql-process-untrusted')).toBe(true);
    } finally {
      await own.close();
    }
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
  const patterns = [`SELECT count(*) AS n FROM range(2) t(i) WHERE repeat('a', 3000) || i GLOB repeat('*a', 6) || 'b'`, `SELECT count(*) AS n FROM range(2) t(i) WHERE repeat('a', 3000) || i ILIKE repeat('%a', 6) || 'b'`];

  it.each(patterns)('is stopped with its process soon after its deadline: %s', async (query) => {
    // A process running, so that starting one is not in the time (the one before this test's was stopped).
    expect((await sql('SELECT 1')).status).toBe(200);
    const { response, ms } = await timed(query);
    expect(response.status).toBe(400);
    expect(problem(response).limit).toBe('time');
    expect(ms).toBeLessThan(TIMEOUT_MS + 2500);
  });
});
