import { homedir, hostname, tmpdir } from 'node:os';
import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * What a query from anyone may not touch: DuckDB answers with the machine's paths (the snapshot's
 * directory, the spill directory, the home directory its extensions would live in) through its
 * settings, the text of the views over the snapshot's files, and its catalogue of extensions and
 * files. The data is public; where it lies is not. Found in the parsed query (json_serialize_sql),
 * so no spelling, quoting or nesting gets past it.
 */
const DENIED = new Set([
  // Settings: allowed_directories, temp_directory, secret_directory, extension_directory, …
  'current_setting',
  'duckdb_settings',
  'getenv',
  // View definitions hold the absolute paths of the Parquet files.
  'duckdb_views',
  'sqlite_master',
  'sqlite_schema',
  'sqlite_temp_master',
  'sqlite_temp_schema',
  'pg_views',
  // Installation, files and secrets.
  'duckdb_extensions',
  'duckdb_databases',
  'duckdb_temporary_files',
  'duckdb_external_file_cache',
  'duckdb_secrets',
  'which_secret',
  'duckdb_logs',
  'duckdb_log_contexts',
  // Text run as SQL at run time, out of reach of this check.
  'query',
  'query_table',
]);

/** `information_schema.views` has each view's definition. */
const DENIED_IN_SCHEMA = new Set(['information_schema.views']);

/** A reason the query may not run, or undefined. */
export async function deniedIn(connection: DuckDBConnection, sql: string): Promise<string | undefined> {
  const reader = await connection.runAndReadAll(`SELECT json_serialize_sql($1::VARCHAR)`, [sql]);
  const tree = String(reader.getRowsJS()[0]![0]);
  const named: string[] = [];
  JSON.parse(tree, function (this: Record<string, unknown>, key, value) {
    if (key === 'function_name' && typeof value === 'string') named.push(value.toLowerCase());
    if (key === 'table_name' && typeof value === 'string') {
      named.push(value.toLowerCase());
      if (typeof this.schema_name === 'string') named.push(`${this.schema_name.toLowerCase()}.${value.toLowerCase()}`);
    }
    return value;
  });
  const denied = named.find((name) => DENIED.has(name) || DENIED_IN_SCHEMA.has(name) || (name.startsWith('pragma_') && name !== 'pragma_version'));
  return denied && `${denied} is not available here: it shows the server's settings, files or paths, not the data`;
}

/** Paths and names of this machine, longest first, and what stands for each in messages. */
export function machineNames(extra: readonly [string, string][] = []): [string, string][] {
  const names: [string, string][] = [...extra, [tmpdir(), '<tmp>'], [homedir(), '<home>'], [hostname(), '<host>']];
  return names.filter(([text]) => text.length > 1).sort((a, b) => b[0].length - a[0].length);
}

/** `message` without this machine's paths and names (see machineNames). */
export function withoutMachineNames(message: string, names: readonly [string, string][]): string {
  return names.reduce((text, [name, stand]) => text.split(name).join(stand), message);
}
