import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPython } from '../../fixtures/python.ts';
import { raw } from '../../fixtures/raw-http.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';
import { askSql, problem, startLimitedServer } from '../../fixtures/sql-endpoint.ts';
import { typeHint } from '../../../server/sql/export.ts';

/** SQL results in every format: each DuckDB type converted, or refused naming the column; a failure partway never a 200. */

let server: TestServer;
beforeAll(async () => {
  server = await startLimitedServer();
});
afterAll(() => server.close());

const sql = (query: string, format = 'json') => askSql(server.url, query, format);

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
describe('a result that cannot be written to its file', () => {
  const columns = [
    { name: 'legend', type: 'STRUCT(label VARCHAR)[]' },
    { name: 'n', type: 'INTEGER' },
  ];

  it('names the columns whose type the format may not hold when the type may be why', () => {
    expect(typeHint('Conversion Error: timestamp out of range', columns, 'parquet')).toBe(
      'Conversion Error: timestamp out of range; of the columns, "legend" (STRUCT(label VARCHAR)[]) may not fit Parquet: cast to VARCHAR',
    );
    expect(typeHint('Conversion Error: timestamp out of range', [columns[1]!], 'parquet')).toBeUndefined();
  });

  it('says nothing of types when the query ran out of memory or was stopped, so that it is refused as such', () => {
    // The soak met it: a light query out of memory beside an abusive one was told to cast its column, and not run again alone.
    expect(typeHint('Out of Memory Error: Failed to allocate block of 32768 bytes (bad allocation)', columns, 'json')).toBeUndefined();
    expect(typeHint('INTERRUPT Error: Interrupted!', columns, 'json')).toBeUndefined();
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
