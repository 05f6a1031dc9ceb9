import { hostname, homedir, tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../../fixtures/server.ts';
import { askSql, problem, startLimitedServer } from '../../fixtures/sql-endpoint.ts';
import { tinySnapshot } from '../../fixtures/tiny.ts';

/** What an SQL query may see of the machine behind the endpoint: the snapshot, nothing else. */

let server: TestServer;
beforeAll(async () => {
  server = await startLimitedServer();
});
afterAll(() => server.close());

const sql = (query: string, format = 'json') => askSql(server.url, query, format);

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
