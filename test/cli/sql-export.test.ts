import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, quoteString, type Database } from '../../core/db/duckdb.ts';
import { createViews } from '../../core/snapshot/read.ts';
import { main } from '../../cli/main.ts';
import { datasets } from '../../datasets/index.ts';
import { toJson } from '../../server/sql/formats.ts';
import { noLimits } from '../../server/sql/limits.ts';
import { SqlSandbox } from '../../server/sql/sandbox.ts';
import { sql } from '../fixtures/sql-command.ts';
import { tempDir, tinyDataDir, tinySnapshot } from '../fixtures/tiny.ts';

/** What `odsnap sql` writes: every format, to standard output or to --out, as the endpoint and the downloads write it. */

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

describe('odsnap sql exports', () => {
  it("writes every row of a table to Parquet, read back by DuckDB as the same rows, in the query's order, with a summary", async () => {
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

  it("writes CSV in the downloads' conventions: a header, ISO instants in UTC with Z, lists and JSON as JSON", async () => {
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
    expect(
      await count(
        `SELECT ${instants} FROM citybike_rides EXCEPT ALL SELECT CAST(started_at AS TIMESTAMPTZ), CAST(finished_at AS TIMESTAMPTZ), started_zone_id FROM ${csv}`,
      ),
    ).toBe(0);

    const properties = join(dir, 'properties.csv');
    expect((await sql(['--out', properties, 'SELECT property_gml_id, transaction_ids, outlines, parcels FROM rcn_properties'])).code).toBe(0);
    const read = await rows<{ property_gml_id: string; transaction_ids: string; outlines: string; parcels: string }>(
      `SELECT * FROM read_csv(${quoteString(properties)}, all_varchar = true)`,
    );
    const stored = new Map(
      (
        await rows<{ property_gml_id: string; transaction_ids: string; outlines: string; parcels: string }>(
          `SELECT property_gml_id, to_json(transaction_ids)::VARCHAR AS transaction_ids, to_json(outlines)::VARCHAR AS outlines, parcels::VARCHAR AS parcels FROM rcn_properties`,
        )
      ).map((r) => [r.property_gml_id, r]),
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
    const result = await sql([
      '--format',
      'csv',
      "SELECT TIMESTAMP_NS '2024-01-01 10:00:00.123456789' AS ns, TIMESTAMP_S '2024-01-01 10:00:01' AS s, TIMESTAMP_MS '2024-01-01 10:00:00.5' AS ms, TIMESTAMP '2024-01-01 10:00:00.25' AS t, TIMESTAMPTZ '2024-01-01 10:00:00+02' AS tz",
    ]);
    expect(result.code).toBe(0);
    expect(result.out.toString()).toBe(
      'ns,s,ms,t,tz\n2024-01-01T10:00:00.123456789,2024-01-01T10:00:01.000,2024-01-01T10:00:00.500,2024-01-01T10:00:00.250,2024-01-01T08:00:00.000Z\n',
    );
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

  it('shows its progress on a terminal, on one line redrawn, then the summary', async () => {
    const file = join(dir, 'progress.csv');
    let err = '';
    const output = { interactive: true, out: () => {}, err: (text: string) => void (err += text) };
    const code = await main(['sql', '--data', tinyDataDir(), '--out', file, 'SELECT count(*) AS n FROM range(400000000) t(i) WHERE hash(i) % 7 = 0'], output);
    expect(code).toBe(0);
    expect(err).toMatch(/^\r\x1b\[2K\[ *[\d.]+s\] (\d+%, )?[\d.]+ K?i?B written/);
    expect(err).toMatch(/\r\x1b\[2K\[ *[\d.]+s\] wrote 1 row \(\d+ B\) to .*progress\.csv\n$/);
  });

  it("takes the format from --out's ending, and says when --format disagrees", async () => {
    for (const [name, check] of [
      ['inferred.parquet', (bytes: Buffer) => bytes.subarray(0, 4).toString() === 'PAR1'],
      ['inferred.csv', (bytes: Buffer) => bytes.toString() === 'one\n1\n'],
      ['inferred.csv.gz', (bytes: Buffer) => gunzipSync(bytes).toString() === 'one\n1\n'],
      ['inferred.json', (bytes: Buffer) => JSON.parse(bytes.toString()).rows[0].one === 1],
      ['inferred.arrow', (bytes: Buffer) => tableFromIPC(bytes).getChild('one')!.get(0) === 1],
      ['inferred.txt', (bytes: Buffer) => bytes.toString() === 'one\n───\n  1\n(1 row)\n'],
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
