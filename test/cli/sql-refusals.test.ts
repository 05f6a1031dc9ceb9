import { existsSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, quoteString, type Database } from '../../core/db/duckdb.ts';
import { createViews } from '../../core/snapshot/read.ts';
import { datasets } from '../../datasets/index.ts';
import { noLimits, SqlRefused } from '../../server/sql/limits.ts';
import { SqlSandbox } from '../../server/sql/sandbox.ts';
import { sql } from '../fixtures/sql-command.ts';
import { tempDir, tinySnapshot } from '../fixtures/tiny.ts';

/** What `odsnap sql` refuses or stops (row limits, time, escapes from the sandbox), leaving a file under --out as it was. */

let dir: string;
let db: Database;
/** A DuckDB with the tiny snapshot's views, to check what the command writes against. */
const rows = <T = Record<string, unknown>>(query: string) => db.rows<T>(query);
const count = async (query: string) => Number((await rows<{ n: bigint }>(`SELECT count(*) AS n FROM (${query})`))[0]!.n);

beforeAll(async () => {
  dir = await tempDir('sql');
  db = await openDatabase();
  await createViews(db, await tinySnapshot(), datasets);
});
afterAll(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

/** Files in the test directory: a failed or finished export leaves no partial file behind. */
const leftovers = async () => (await readdir(dir)).filter((name) => name.includes('.partial'));

describe('odsnap sql exports', () => {
  it('has no row limit by default, to standard output or to a file, and refuses more than --max-rows', async () => {
    const csv = await sql(['--format', 'csv', 'SELECT * FROM range(150000)']);
    expect(csv.code).toBe(0);
    expect(csv.out.toString().trimEnd().split('\n')).toHaveLength(150_001);
    const json = await sql(['--format', 'json', 'SELECT * FROM range(150000) t(i)']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out.toString()).rows).toHaveLength(150_000);
    const file = join(dir, 'range.parquet');
    const written = await sql(['--out', file, 'SELECT * FROM range(150000)']);
    expect(written.code).toBe(0);
    expect(written.err).toMatch(/wrote 150,000 rows \([\d.]+ KiB\) to .*range\.parquet\n$/);
    expect(await count(`SELECT * FROM read_parquet(${quoteString(file)})`)).toBe(150_000);

    for (const format of ['csv', 'json', 'parquet', 'table']) {
      const capped = await sql(['--max-rows', '10', '--format', format, 'SELECT * FROM range(11)']);
      expect(capped.code).toBe(1);
      expect(capped.out.length).toBe(0);
      expect(capped.err).toBe('odsnap sql: refused: the result has more than 10 rows; add a LIMIT or aggregate\n');
      expect((await sql(['--max-rows', '10', '--format', format, 'SELECT * FROM range(10)'])).code).toBe(0);
    }
    const cappedFile = join(dir, 'capped.csv');
    const capped = await sql(['--max-rows', '10', '--out', cappedFile, 'SELECT * FROM range(150000)']);
    expect(capped.code).toBe(1);
    expect(capped.err).toContain('more than 10 rows');
    expect(existsSync(cappedFile)).toBe(false);
  });

  it('stops a query at --timeout, leaving no file under --out', async () => {
    const file = join(dir, 'slow.parquet');
    const started = Date.now();
    const slow = await sql(['--timeout', '0.2', '--out', file, 'SELECT count(*) FROM range(100000000) a, range(1000000) b']);
    expect(slow.code).toBe(1);
    expect(slow.err).toContain('odsnap sql: refused: the query ran longer than 0.2 s and was stopped');
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(existsSync(file)).toBe(false);
    const json = await sql(['--timeout', '0.2', '--format', 'json', 'SELECT count(*) FROM range(100000000) a, range(1000000) b']);
    expect(json.code).toBe(1);
    expect(json.err).toContain('longer than 0.2 s');
  });

  it.each([
    ['a run-time error', ["SELECT CAST('x' AS INTEGER) AS n FROM range(5)"], /Conversion Error/],
    ['a timeout', ['--timeout', '0.2', 'SELECT count(*) FROM range(100000000) a, range(1000000) b'], /longer than 0\.2 s/],
    ['--max-rows', ['--max-rows', '3', 'SELECT * FROM range(5)'], /more than 3 rows/],
  ])('leaves a file under --out as it was after %s', async (_, args, reason) => {
    for (const name of ['failed.parquet', 'failed.csv', 'failed.csv.gz', 'failed.json']) {
      const file = join(dir, name);
      await rm(file, { force: true });
      const absent = await sql(['--out', file, ...args]);
      expect(absent.code).toBe(1);
      expect(absent.err).toMatch(reason);
      expect(absent.err).toContain(`(${file} left as it was)`);
      expect(existsSync(file)).toBe(false);
      await writeFile(file, 'before');
      expect((await sql(['--out', file, ...args])).code).toBe(1);
      expect(await readFile(file, 'utf8')).toBe('before');
      expect(await leftovers()).toEqual([]);
      // and a good export replaces it
      expect((await sql(['--out', file, 'SELECT 1 AS one'])).code).toBe(0);
      expect(await readFile(file)).not.toEqual(Buffer.from('before'));
    }
  });

  it('leaves the file as it was when interrupted', async () => {
    const file = join(dir, 'interrupted.csv');
    await writeFile(file, 'before');
    // Late enough that the command has started on a busy machine (a SIGINT before it listens ends
    // the process outright); whether it comes while the sandbox opens or while the query runs, the
    // export stops and the file stays as it was.
    const result = await sql(['--out', file, 'SELECT count(*) FROM range(100000000) a, range(1000000) b'], {
      onStart: (pid) => setTimeout(() => process.kill(pid, 'SIGINT'), 5000),
    });
    expect(result.code).toBe(130);
    expect(result.err).toContain(`odsnap sql: interrupted (${file} left as it was)`);
    expect(await readFile(file, 'utf8')).toBe('before');
    expect(await leftovers()).toEqual([]);
  });

  it.each([
    [`SELECT * FROM read_csv('/etc/passwd')`, /Permission Error/],
    [`SELECT * FROM read_text('/proc/self/environ')`, /Permission Error/],
    [`COPY (SELECT 1) TO '/tmp/odsnap-escape.csv'`, /only SELECT|Permission/],
    [`ATTACH '/tmp/odsnap-escape.db'`, /only SELECT/],
    [`SET enable_external_access = true`, /only SELECT/],
    [`INSTALL httpfs`, /only SELECT/],
    [`SELECT 1; SELECT 2`, /one statement/],
  ])('refuses %s, to a file as to standard output', async (query, reason) => {
    for (const args of [['--out', join(dir, 'escape.csv')], ['--format', 'csv'], []]) {
      const result = await sql([...args, query]);
      expect(result.code).toBe(1);
      expect(result.err).toMatch(reason);
      expect(result.out.length).toBe(0);
    }
    expect(existsSync(join(dir, 'escape.csv'))).toBe(false);
    expect(existsSync('/tmp/odsnap-escape.csv')).toBe(false);
  });

  it('refuses to export columns named alike but for case, which DuckDB would take for one', async () => {
    for (const args of [
      ['--out', join(dir, 'cased.csv')],
      ['--format', 'csv'],
      ['--out', join(dir, 'cased.parquet')],
    ]) {
      const result = await sql([...args, 'SELECT 1 AS a, 2 AS A']);
      expect(result.code).toBe(1);
      expect(result.err).toContain('refused: two columns are named "a" and "A", one name to DuckDB; give each its own name with AS');
    }
    expect(JSON.parse((await sql(['--format', 'json', 'SELECT 1 AS a, 2 AS A'])).out.toString()).rows).toEqual([{ a: 1, A: 2 }]);
  });

  it('lets an export write its own file only: its query can read or write nothing else, nor COPY to that file', async () => {
    const file = join(dir, 'allowed.csv');
    const sandbox = await SqlSandbox.open(await tinySnapshot(), datasets, { writable: [file], progress: true });
    try {
      const refused = (query: string) =>
        sandbox.run(query, noLimits).then(
          () => 'ran',
          (error) => (error instanceof SqlRefused ? error.message : `failed: ${error}`),
        );
      expect(await refused(`COPY (SELECT 1) TO ${quoteString(file)}`)).toMatch(/only SELECT queries run here; this is a COPY statement/);
      expect(existsSync(file)).toBe(false);
      expect(await refused(`SELECT * FROM read_csv('/etc/passwd')`)).toMatch(/Permission Error/);
      expect(await refused(`SET allowed_paths = ['/etc/passwd']`)).toMatch(/only SELECT/);
      const copied = await sandbox.copy(`SELECT * FROM range(3) t(i); -- a comment`, { path: file, format: 'csv' }, noLimits);
      expect(copied.rows).toBe(3);
      expect(await readFile(file, 'utf8')).toBe('i\n0\n1\n2\n');
      const other = join(dir, 'other.csv');
      await expect(sandbox.copy('SELECT 1', { path: other, format: 'csv' }, noLimits)).rejects.toThrow(/Permission Error/);
      expect(existsSync(other)).toBe(false);
    } finally {
      sandbox.close();
    }
  });
});
