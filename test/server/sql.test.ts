import { get } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.ts';
import { capture } from '../fixtures/output.ts';
import { raw } from '../fixtures/raw-http.ts';
import { startTestServer, type TestServer } from '../fixtures/server.ts';
import { tinyDataDir } from '../fixtures/tiny.ts';

let server: TestServer;
beforeAll(async () => (server = await startTestServer({ sql: { limits: { timeoutMs: 400, maxRows: 1000, maxBytes: 1024 * 1024 } } })));
afterAll(() => server.close());

const sql = (query: string, format = 'json') => raw(`${server.url}/api/sql?format=${format}&q=${encodeURIComponent(query)}`);
const query = `SELECT market_type_code AS market, count(*) AS n, sum(gross_price) AS total, min(document_date) AS first
  FROM rcn_transactions GROUP BY ALL ORDER BY market`;

describe('GET /api/sql', () => {
  it('answers JSON with columns, types and rows, over views named after data set and table', async () => {
    const response = await sql(query);
    expect(response.status).toBe(200);
    const body = JSON.parse(response.body.toString());
    expect(body.columns.map((c: { name: string }) => c.name)).toEqual(['market', 'n', 'total', 'first']);
    const { items } = await server.json('/api/public/rcn/transactions?limit=1');
    expect(body.rows.reduce((sum: number, row: { n: number }) => sum + row.n, 0)).toBeGreaterThan(items.length);
    const tables = JSON.parse((await sql(`SELECT table_name FROM information_schema.tables ORDER BY 1`)).body.toString()).rows.map(
      (r: { table_name: string }) => r.table_name,
    );
    expect(tables).toEqual(expect.arrayContaining(['rcn_transactions', 'citybike_rides', 'bike_counter_readings', 'air_quality_readings']));
  });

  it('gives the same rows as CSV, Parquet and Arrow IPC', async () => {
    const json = JSON.parse((await sql(query)).body.toString()).rows as Record<string, unknown>[];
    const csv = (await sql(query, 'csv')).body.toString().trim().split('\r\n');
    expect(csv[0]).toBe('market,n,total,first');
    expect(csv.slice(1).map((line) => Number(line.split(',')[1]))).toEqual(json.map((r) => r.n));

    const parquet = await sql(query, 'parquet');
    expect(parquet.headers['content-type']).toBe('application/vnd.apache.parquet');
    const file = new Uint8Array(parquet.body).buffer;
    const fromParquet = await parquetReadObjects({ file, compressors });
    expect(fromParquet.map((r) => Number(r.n))).toEqual(json.map((r) => r.n));

    const ipc = await sql(query, 'arrow');
    // A problem document here (a query refused) would otherwise fail below as unreadable IPC.
    expect([ipc.status, ipc.headers['content-type']], ipc.body.toString().slice(0, 300)).toEqual([200, 'application/vnd.apache.arrow.stream']);
    const arrow = tableFromIPC(ipc.body);
    expect(arrow.numRows).toBe(json.length);
    expect(Array.from(arrow.getChild('n')!.toArray(), Number)).toEqual(json.map((r) => r.n));
  });

  it('compresses a result when asked, to the same JSON, and answers 304 to its ETag', async () => {
    const path = `${server.url}/api/sql?q=${encodeURIComponent(query)}`;
    const plain = await raw(path);
    for (const [encoding, decode] of [
      ['br', brotliDecompressSync],
      ['gzip', gunzipSync],
    ] as const) {
      const packed = await raw(path, { headers: { 'accept-encoding': encoding } });
      expect(packed.headers['content-encoding']).toBe(encoding);
      expect(decode(packed.body).toString()).toBe(plain.body.toString());
    }
    const again = await raw(path, { headers: { 'if-none-match': String(plain.headers.etag) } });
    expect(again.status).toBe(304);
  });

  /** Attempts to leave the sandbox, and what the refusal says. */
  const escapes: [string, RegExp][] = [
    [`SELECT * FROM read_csv('/etc/passwd')`, /Permission|disabled/],
    [`SELECT * FROM read_parquet('${'/'}etc/*.parquet')`, /Permission|disabled/],
    [`COPY (SELECT 1) TO '/tmp/odsnap-escape.csv'`, /only SELECT|Permission/],
    [`ATTACH '/tmp/odsnap-escape.db'`, /only SELECT/],
    [`INSTALL httpfs`, /only SELECT queries run here; this is an INSTALL or LOAD statement/],
    [`LOAD httpfs`, /only SELECT/],
    [`SET threads = 1`, /only SELECT/],
    [`PRAGMA enable_profiling`, /only SELECT/],
    [`CREATE TABLE t AS SELECT 1`, /only SELECT/],
    [`SELECT 1; SELECT 2`, /one statement/],
    [`SELECT * FROM read_text('/proc/self/environ')`, /Permission|disabled/],
    [`SELECT count(*) FROM range(100000000000) t(i) WHERE hash(i) = 0`, /ran past the time limit of 0.4 s and was stopped/],
    [`SELECT * FROM range(5000)`, /more than 1000 rows/],
    [`SELEKT 1`, /syntax/i],
    [`SELECT 1 AS a, 2 AS a`, /two columns are named "a"; give each its own name/],
    [`PIVOT rcn_transactions ON market_type_code USING count(*)`, /PIVOT … ON column IN/],
  ];

  it.each(escapes)('refuses %s with a 400 giving the reason', async (text, reason) => {
    const response = await sql(text);
    expect(response.status).toBe(400);
    const problem = JSON.parse(response.body.toString());
    expect(problem).toMatchObject({ status: 400, param: 'q' });
    expect(problem.detail).toMatch(reason);
  });

  it('asks for a query and a known format, each once', async () => {
    expect((await raw(`${server.url}/api/sql`)).status).toBe(400);
    expect(JSON.parse((await sql('SELECT 1', 'xml')).body.toString())).toMatchObject({ status: 400, param: 'format' });
    const twice = await raw(`${server.url}/api/sql?q=SELECT+1&q=SELECT+2`);
    expect(JSON.parse(twice.body.toString())).toMatchObject({ status: 400, param: 'q', detail: 'q is given more than once' });
  });

  it('answers what DuckDB runs as a query: SHOW TABLES, DESCRIBE, PRAGMA version', async () => {
    const tables = JSON.parse((await sql('SHOW TABLES')).body.toString()).rows.map((row: { name: string }) => row.name);
    expect(tables).toContain('rcn_transactions');
    expect((await sql('DESCRIBE rcn_transactions')).status).toBe(200);
    expect((await sql('PRAGMA version')).status).toBe(200);
  });

  it('logs no failure when a client goes away while its result is sent', async () => {
    const url = `${server.url}/api/sql?q=${encodeURIComponent(`SELECT repeat('x', 800) AS s FROM range(1000)`)}`;
    await new Promise<void>((resolve, reject) => {
      get(url, (response) => response.once('data', () => (response.destroy(), resolve()))).on('error', reject);
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.logs.filter((line) => line.level === 'error')).toEqual([]);
    expect((await sql('SELECT 1 AS one')).status).toBe(200);
  });

  it('keeps serving after every refusal', async () => {
    expect(JSON.parse((await sql('SELECT 42 AS answer')).body.toString()).rows).toEqual([{ answer: 42 }]);
  });
});

describe('odsnap sql', () => {
  it('prints a table, and refuses what the server refuses', async () => {
    const output = capture();
    expect(await main(['sql', '--data', tinyDataDir(), 'SELECT count(*) AS counters FROM bike_counter_counters'], output)).toBe(0);
    expect(output.out()).toMatch(/counters\n─{8}\n {7}3\n\(1 row\)/);
    const refused = capture();
    expect(await main(['sql', '--data', tinyDataDir(), "SELECT * FROM read_csv('/etc/passwd')"], refused)).toBe(1);
    expect(refused.err()).toMatch(/refused: Permission Error/);
  });
});
