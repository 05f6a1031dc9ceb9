import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOnlyCopy } from '../fixtures/read-only.ts';
import { raw } from '../fixtures/raw-http.ts';
import { startTestServer } from '../fixtures/server.ts';
import { tinyDataDir } from '../fixtures/tiny.ts';

/** A data directory on a read-only file system, as a shared or mounted one often is: what only reads it works. */

const cli = fileURLToPath(new URL('../../bin/odsnap.js', import.meta.url));
const odsnap = (...args: string[]) =>
  promisify(execFile)(process.execPath, [cli, ...args], { env: { ...process.env, ODSNAP_CACHE_DIR: '' }, maxBuffer: 64 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );

let scratch: string;
let dataDir: string;
let release: () => Promise<void>;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'odsnap-read-only-'));
  ({ path: dataDir, release } = await readOnlyCopy(tinyDataDir(), scratch));
  await expect(writeFile(join(dataDir, 'probe'), 'x')).rejects.toThrow(/EROFS|EACCES/);
});
afterAll(async () => {
  await release();
  await rm(scratch, { recursive: true, force: true });
});

describe('a read-only data directory', () => {
  it('is served, v1 and SQL', async () => {
    const server = await startTestServer({ dataDir });
    try {
      expect((await raw(`${server.url}/api/public/rcn/transactions?limit=1`)).status).toBe(200);
      expect((await raw(`${server.url}/api/sql?q=${encodeURIComponent('SELECT count(*) AS n FROM citybike_rides')}`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('answers odsnap sql, to standard output and as Parquet', async () => {
    const json = await odsnap('sql', '--data', dataDir, '--format', 'json', 'SELECT count(*) AS n FROM rcn_transactions');
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const parquet = await odsnap('sql', '--data', dataDir, '--out', join(scratch, 'n.parquet'), 'SELECT count(*) AS n FROM rcn_transactions');
    expect(parquet.code, parquet.stderr).toBe(0);
    // Parquet to standard output goes through a scratch file first.
    const piped = await odsnap('sql', '--data', dataDir, '--format', 'parquet', 'SELECT count(*) AS n FROM rcn_transactions');
    expect(piped.code, piped.stderr).toBe(0);
  });

  it('is built into a tree elsewhere, and verified', async () => {
    const built = await odsnap('build', '--data', dataDir, '--out', join(scratch, 'dist'), '--no-site');
    expect(built.code, built.stderr).toBe(0);
    const verified = await odsnap('verify', '--data', dataDir);
    expect(verified.code, verified.stderr).toBe(0);
  });

  it('keeps what it derives under --cache-dir when given', async () => {
    const cacheDir = join(scratch, 'cache');
    const result = await odsnap('sql', '--data', dataDir, '--cache-dir', cacheDir, '--format', 'parquet', 'SELECT 1 AS one');
    expect(result.code, result.stderr).toBe(0);
    expect(await readdir(cacheDir)).toHaveLength(1);
  });
});
