import * as duckdb from '@duckdb/duckdb-wasm';
// The one bundle the site ships (exception handling: every current browser), copied into the
// build by Vite under _astro/: nothing comes from a CDN, so the page works offline.
import wasmUrl from '@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url';
import workerUrl from '@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js?url';

/**
 * DuckDB-WASM started in a worker, and connections to it that compute time as the server does.
 * Only browser-duckdb.ts imports this, and it is itself imported on the first run.
 */

export type Connection = duckdb.AsyncDuckDBConnection;

export async function startDuckDB(): Promise<duckdb.AsyncDuckDB> {
  const db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), new Worker(workerUrl));
  await db.instantiate(new URL(wasmUrl, location.href).href);
  await db.open({});
  return db;
}

/** Nothing may be fetched from an extension repository: the page must work offline. */
export const OFFLINE = 'SET autoinstall_known_extensions = false; SET autoload_known_extensions = false';

/**
 * DuckDB-WASM (1.4) truncates to a day or more as DATE, the server's DuckDB (1.5) as TIMESTAMP:
 * the server's way, so both give the same rows.
 */
const SERVER_DATE_TRUNC = 'CREATE TEMP MACRO date_trunc(part, value) AS CAST(system.main.date_trunc(part, value) AS TIMESTAMP)';

/** A new connection: `settings` run on it, then the server's time functions made its own. */
export async function connectLikeServer(db: duckdb.AsyncDuckDB, settings: string): Promise<Connection> {
  const connection = await db.connect();
  await connection.query(settings);
  await connection.query(SERVER_DATE_TRUNC);
  return connection;
}
