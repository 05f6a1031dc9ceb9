import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw } from '../../fixtures/raw-http.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';
import { askSql, problem, startLimitedServer } from '../../fixtures/sql-endpoint.ts';

/** The processes SQL runs in: started once for the first queries, run again when one dies, and the files they leave cleared. */

let server: TestServer;
beforeAll(async () => {
  server = await startLimitedServer();
});
afterAll(() => server.close());

const sql = (query: string, format = 'json') => askSql(server.url, query, format);

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
/** The files in the result directories of this process's servers (see runner.ts), by name, and their sizes. */
async function resultFiles(): Promise<Map<string, number>> {
  const parent = join(tmpdir(), 'odsnap');
  const sizes = new Map<string, number>();
  for (const dir of await readdir(parent).catch(() => [])) {
    if (!dir.startsWith(`spill-${hostname()}-${process.pid}-`)) continue;
    for (const name of await readdir(join(parent, dir)).catch(() => []))
      sizes.set(name, (await stat(join(parent, dir, name)).catch(() => undefined))?.size ?? 0);
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
describe('SQL answers under a load that kills the SQL process', () => {
  const ROWS = 3000;
  /** What a 200 must hold: every row the query promises, in a body that parses whole. */
  const whole = (body: string, format: string) =>
    format === 'json' ? JSON.parse(body).rows.length === ROWS : body.endsWith('\r\n') && body.split('\r\n').length === ROWS + 2;

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
          response.status === 200
            ? query === promised && whole(response.body.toString(), format)
              ? '200 whole'
              : '200 cut short'
            : response.headers['content-type'] === 'application/problem+json' && problem(response).status === response.status
              ? `${response.status} problem`
              : `${response.status} other`;
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      }
    };
    try {
      await Promise.all(['json', 'csv', 'json', 'csv'].flatMap((format) => [send(unbounded, format), send(promised, format)]));
      expect(
        Object.keys(outcomes).filter((outcome) => !/^(200 whole|400 problem|503 problem)$/.test(outcome)),
        JSON.stringify(outcomes),
      ).toEqual([]);
      expect(outcomes['200 whole'], JSON.stringify(outcomes)).toBeGreaterThan(0);
      // The load did what it is here for: the process died of its memory cap, or an allocation failed in it.
      expect(own.logs.some((line) => line.event === 'sql-process-ended' || line.event === 'sql-process-untrusted')).toBe(true);
    } finally {
      await own.close();
    }
  });
});
