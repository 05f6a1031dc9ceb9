import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteString, type Database } from '../../core/db/duckdb.ts';
import { createViews } from '../../core/snapshot/read.ts';
import { main } from '../../cli/main.ts';
import { datasets } from '../../datasets/index.ts';
import { toJson } from '../../server/sql/formats.ts';
import { noLimits, SqlRefused } from '../../server/sql/limits.ts';
import { SqlSandbox } from '../../server/sql/sandbox.ts';
import { tempDir, tinyDataDir, tinySnapshot } from '../fixtures/tiny.ts';

/** `odsnap sql --data <tiny> …` as a real process: its exit code, standard output as bytes, standard error. */
function sql(args: readonly string[], options: { onStart?: (pid: number) => void } = {}): Promise<{ code: number | null; out: Buffer; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/odsnap.js', 'sql', '--data', tinyDataDir(), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out: Buffer.concat(out), err }));
    options.onStart?.(child.pid!);
  });
}

let dir: string;
let db: Database;
/** A DuckDB with the tiny snapshot's views, to check what the command writes against. */
const rows = <T = Record<string, unknown>>(query: string) => db.rows<T>(query);
const count = async (query: string) => Number((await rows<{ n: bigint }>(`SELECT count(*) AS n FROM (${query})`))[0]!.n);

beforeAll(async () => {
  dir = await tempDir('sql');
  const { openDatabase } = await import('../../core/db/duckdb.ts');
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
  it('writes every row of a table to Parquet, read back by DuckDB as the same rows, in the query\'s order, with a summary', async () => {
    const file = join(dir, 'rides.parquet');
    const { code, err } = await sql(['--out', file, 'SELECT * FROM citybike_rides ORDER BY started_at DESC, started_zone_id']);
    expect(code).toBe(0);
    const total = await count('SELECT * FROM citybike_rides');
    // Not on a terminal: the summary only, no progress.
    expect(err).toMatch(new RegExp(`^\\[ *[\\d.]+s\\] wrote ${total.toLocaleString('en')} rows \\([\\d.]+ KiB\\) to ${file}\n$`));
    expect(total).toBeGreaterThan(1000);
    expect(await count(`SELECT * FROM read_parquet(${quoteString(file)})`)).toBe(total);
    expect(await count(`SELECT * FROM citybike_rides EXCEPT ALL SELECT * FROM read_parquet(${quoteString(file)})`)).toBe(0);
    expect(await count(`SELECT * FROM read_parquet(${quoteString(file)}) EXCEPT ALL SELECT * FROM citybike_rides`)).toBe(0);
    const order = await rows<{ ordered: boolean }>(
      `SELECT bool_and(previous IS NULL OR previous >= started_at) AS ordered FROM (SELECT started_at, lag(started_at) OVER (ORDER BY file_row_number) AS previous FROM read_parquet(${quoteString(file)}, file_row_number = true))`,
    );
    expect(order[0]!.ordered).toBe(true);
    const compression = await rows<{ compression: string }>(`SELECT DISTINCT compression FROM parquet_metadata(${quoteString(file)})`);
    expect(compression.map((c) => c.compression)).toEqual(['ZSTD']);
  });

  it('writes CSV in the downloads\' conventions: a header, ISO instants in UTC with Z, lists and JSON as JSON', async () => {
    const rides = join(dir, 'rides.csv');
    expect((await sql(['--out', rides, 'SELECT * FROM citybike_rides'])).code).toBe(0);
    const text = await readFile(rides, 'utf8');
    const [header, first] = text.split('\n');
    expect(header).toBe('season_year,started_zone_id,finished_zone_id,started_at,finished_at,distance,average_speed,rating,extra,upstream_json');
    expect(first!.split(',')[3]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const csv = `read_csv(${quoteString(rides)}, all_varchar = true)`;
    expect(await count(`SELECT * FROM ${csv}`)).toBe(await count('SELECT * FROM citybike_rides'));
    expect(await count(`SELECT * FROM ${csv} WHERE NOT regexp_full_match(started_at, '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z')`)).toBe(0);
    // Read back as instants, the same instants.
    const instants = 'started_at, finished_at, started_zone_id';
    expect(await count(`SELECT ${instants} FROM citybike_rides EXCEPT ALL SELECT CAST(started_at AS TIMESTAMPTZ), CAST(finished_at AS TIMESTAMPTZ), started_zone_id FROM ${csv}`)).toBe(0);

    const properties = join(dir, 'properties.csv');
    expect((await sql(['--out', properties, 'SELECT property_gml_id, transaction_ids, outlines, parcels FROM rcn_properties'])).code).toBe(0);
    const read = await rows<{ property_gml_id: string; transaction_ids: string; outlines: string; parcels: string }>(`SELECT * FROM read_csv(${quoteString(properties)}, all_varchar = true)`);
    const stored = new Map(
      (await rows<{ property_gml_id: string; transaction_ids: string; outlines: string; parcels: string }>(`SELECT property_gml_id, to_json(transaction_ids)::VARCHAR AS transaction_ids, to_json(outlines)::VARCHAR AS outlines, parcels::VARCHAR AS parcels FROM rcn_properties`)).map((r) => [r.property_gml_id, r]),
    );
    expect(read.length).toBe(stored.size);
    for (const row of read) {
      const expected = stored.get(row.property_gml_id)!;
      expect(JSON.parse(row.transaction_ids)).toEqual(JSON.parse(expected.transaction_ids));
      expect(Array.isArray(JSON.parse(row.transaction_ids))).toBe(true);
      expect(JSON.parse(row.outlines ?? 'null')).toEqual(JSON.parse(expected.outlines ?? 'null'));
      expect(JSON.parse(row.parcels ?? 'null')).toEqual(JSON.parse(expected.parcels ?? 'null'));
    }
  });

  it('writes every kind of timestamp a query may give in ISO 8601, to its precision', async () => {
    const result = await sql(['--format', 'csv', "SELECT TIMESTAMP_NS '2024-01-01 10:00:00.123456789' AS ns, TIMESTAMP_S '2024-01-01 10:00:01' AS s, TIMESTAMP_MS '2024-01-01 10:00:00.5' AS ms, TIMESTAMP '2024-01-01 10:00:00.25' AS t, TIMESTAMPTZ '2024-01-01 10:00:00+02' AS tz"]);
    expect(result.code).toBe(0);
    expect(result.out.toString()).toBe('ns,s,ms,t,tz\n2024-01-01T10:00:00.123456789,2024-01-01T10:00:01.000,2024-01-01T10:00:00.500,2024-01-01T10:00:00.250,2024-01-01T08:00:00.000Z\n');
  });

  it('gzips a .csv.gz, and writes the same bytes to standard output as to --out', async () => {
    const query = 'SELECT * FROM rcn_properties ORDER BY property_gml_id';
    const plain = join(dir, 'same.csv');
    const gzipped = join(dir, 'same.csv.gz');
    expect((await sql(['--out', plain, query])).code).toBe(0);
    expect((await sql(['--out', gzipped, query])).code).toBe(0);
    const stdout = await sql(['--format', 'csv', query]);
    expect(stdout.code).toBe(0);
    const bytes = await readFile(plain);
    expect(bytes.length).toBeGreaterThan(1000);
    expect(stdout.out.equals(bytes)).toBe(true);
    const gz = await readFile(gzipped);
    expect([...gz.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    expect(gunzipSync(gz).equals(bytes)).toBe(true);
  });

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

  it('streams JSON as the endpoint encodes it', async () => {
    const query = 'SELECT * FROM rcn_transactions ORDER BY 1';
    const sandbox = await SqlSandbox.open(await tinySnapshot(), datasets);
    try {
      const expected = toJson(await sandbox.run(query, noLimits));
      expect((await sql(['--format', 'json', query])).out.toString()).toBe(expected);
      const file = join(dir, 'transactions.json');
      expect((await sql(['--out', file, query])).code).toBe(0);
      expect(await readFile(file, 'utf8')).toBe(expected);
    } finally {
      sandbox.close();
    }
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
    ['a run-time error', ['SELECT CAST(\'x\' AS INTEGER) AS n FROM range(5)'], /Conversion Error/],
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
    for (const args of [['--out', join(dir, 'cased.csv')], ['--format', 'csv'], ['--out', join(dir, 'cased.parquet')]]) {
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
      const refused = (query: string) => sandbox.run(query, noLimits).then(() => 'ran', (error) => (error instanceof SqlRefused ? error.message : `failed: ${error}`));
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

  it('shows its progress on a terminal, on one line redrawn, then the summary', async () => {
    const file = join(dir, 'progress.csv');
    let err = '';
    const output = { interactive: true, out: () => {}, err: (text: string) => void (err += text) };
    const code = await main(['sql', '--data', tinyDataDir(), '--out', file, 'SELECT count(*) AS n FROM range(400000000) t(i) WHERE hash(i) % 7 = 0'], output);
    expect(code).toBe(0);
    expect(err).toMatch(/^\r\x1b\[2K\[ *[\d.]+s\] (\d+%, )?[\d.]+ K?i?B written/);
    expect(err).toMatch(/\r\x1b\[2K\[ *[\d.]+s\] wrote 1 row \(\d+ B\) to .*progress\.csv\n$/);
  });

  it('takes the format from --out\'s ending, and says when --format disagrees', async () => {
    for (const [name, check] of [
      ['inferred.parquet', (bytes: Buffer) => bytes.subarray(0, 4).toString() === 'PAR1'],
      ['inferred.csv', (bytes: Buffer) => bytes.toString() === 'one\n1\n'],
      ['inferred.csv.gz', (bytes: Buffer) => gunzipSync(bytes).toString() === 'one\n1\n'],
      ['inferred.json', (bytes: Buffer) => JSON.parse(bytes.toString()).rows[0].one === 1],
      ['inferred.arrow', (bytes: Buffer) => tableFromIPC(bytes).getChild('one')!.get(0) === 1],
      ['inferred.txt', (bytes: Buffer) => bytes.toString() === 'one\n───\n1\n(1 row)\n'],
    ] as const) {
      const file = join(dir, name);
      expect((await sql(['--out', file, 'SELECT 1 AS one'])).code).toBe(0);
      expect(check(await readFile(file))).toBe(true);
    }
    const bad: [string[], string][] = [
      [['--format', 'csv', '--out', join(dir, 'x.parquet')], '--format csv disagrees with --out'],
      [['--format', 'table', '--out', join(dir, 'x.json')], '--format table disagrees with --out'],
      [['--out', join(dir, 'x.json.gz')], 'only csv is written gzip-compressed'],
      [['--max-rows', 'many'], '--max-rows must be a whole number'],
      [['--max-rows', '0'], '--max-rows must be at least 1'],
      [['--timeout', 'soon'], '--timeout must be a number of seconds'],
      [['--timeout', '0'], '--timeout must be more than 0'],
    ];
    for (const [args, message] of bad) {
      const result = await sql([...args, 'SELECT 1']);
      expect(result.code).toBe(2);
      expect(result.err).toContain(message);
      expect(result.err.trimEnd().split('\n')).toHaveLength(1);
    }
    expect(await readdir(dir)).not.toContain('x.parquet');
  });

  it('writes a query ending in a semicolon and a comment, and SHOW or DESCRIBE, to a file', async () => {
    const file = join(dir, 'described.csv');
    expect((await sql(['--out', file, 'DESCRIBE citybike_rides; -- the columns'])).code).toBe(0);
    expect((await readFile(file, 'utf8')).split('\n')[0]).toBe('column_name,column_type,null,key,default,extra');
    expect((await sql(['--out', file, "SELECT ';--' AS text; -- a comment ; with a semicolon"])).code).toBe(0);
    expect(await readFile(file, 'utf8')).toBe('text\n;--\n');
  });
});
