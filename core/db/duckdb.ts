import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, JSDuckDBValueConverter, type DuckDBConnection, type DuckDBDataChunk, type DuckDBValue } from '@duckdb/node-api';
import { ownSpillDir } from './spill.ts';

/** One in-process DuckDB, with the session settings every part of odsnap relies on. */
export interface Database {
  readonly connection: DuckDBConnection;
  /** Rows as plain JS objects (BIGINT as bigint; cast in SQL where a number is wanted). */
  rows<T = Record<string, unknown>>(sql: string, params?: DuckDBValue[]): Promise<T[]>;
  run(sql: string, params?: DuckDBValue[]): Promise<void>;
  /** Rows in batches as DuckDB produces them, for results too large to hold at once. */
  stream<T = Record<string, unknown>>(sql: string, params?: DuckDBValue[]): AsyncGenerator<T[]>;
  /** `stream`, each row read as one JSON text (see asJsonRows): faster for rows of strings, about even for numbers. */
  streamJson<T = Record<string, unknown>>(sql: string, params?: DuckDBValue[]): AsyncGenerator<T[]>;
  /** Another connection to the same database (its views included), to run queries beside this one's; closing it leaves the database open. */
  connect(): Promise<Database>;
  close(): void;
}

/**
 * A query whose rows come as one JSON text each. The binding decodes every value of a result on
 * its own, one native call per string: for rows of many strings (the register) that costs more
 * than the query. DuckDB writes the rows as JSON in less time, and JSON.parse reads them fast
 * (whole tables of many strings in well under half the time; numbers about even). Values then
 * come as JSON has them: numbers (BIGINT too, so only up to 2^53 exactly), strings (dates,
 * decimals, timestamps), lists, objects (STRUCT, and JSON columns embedded as they are).
 */
export const asJsonRows = (sql: string) => `SELECT CAST(to_json(__row) AS VARCHAR) AS __row FROM (${sql}) AS __row`;

/** A query's rows read as JSON texts (asJsonRows), parsed, in batches as DuckDB produces them. */
export async function* streamJsonRows<T = Record<string, unknown>>(connection: DuckDBConnection, sql: string, params?: DuckDBValue[]): AsyncGenerator<T[]> {
  const result = await connection.stream(asJsonRows(sql), params);
  for await (const rows of result.yieldRowsJs()) yield rows.map(([text]) => JSON.parse(text as string) as T);
}

/**
 * A chunk's rows as plain objects (BIGINT as bigint, ENUM as its text), decoded column by column:
 * about three times faster than the binding's row objects.
 */
export function chunkRows(chunk: DuckDBDataChunk, names: readonly string[]): Record<string, unknown>[] {
  const count = chunk.rowCount;
  const rows: Record<string, unknown>[] = [];
  for (let r = 0; r < count; r++) rows.push({});
  chunk.convertColumns(JSDuckDBValueConverter).forEach((values, c) => {
    const name = names[c]!;
    for (let r = 0; r < count; r++) rows[r]![name] = values[r];
  });
  return rows;
}

export interface DatabaseOptions {
  readonly threads?: number;
  /** DuckDB memory limit, e.g. '1GB'. */
  readonly memoryLimit?: string;
  /** Where this database makes its own directory for what does not fit (see ownSpillDir); by default odsnap/ in the system's temporary directory. */
  readonly spillDir?: string;
}

/** An in-memory DuckDB that spills into a directory of its own (see ownSpillDir). */
export interface OpenedInstance {
  readonly instance: DuckDBInstance;
  /** Closes the instance and removes its spill directory. */
  close(): void;
}

/**
 * A DuckDB instance with `config`, spilling under `spillParent` (by default odsnap/ in the
 * system's temporary directory). `setUp` runs first on a connection of its own (what every
 * connection shares: attached files, views, global settings); if it fails, the instance and its
 * spill directory are gone again.
 */
export async function openInstance(
  config: Record<string, string>,
  spillParent = join(tmpdir(), 'odsnap'),
  setUp?: (connection: DuckDBConnection) => Promise<void>,
): Promise<OpenedInstance> {
  const spill = await ownSpillDir(spillParent);
  let instance: DuckDBInstance | undefined;
  try {
    instance = await DuckDBInstance.create(':memory:', { ...config, temp_directory: spill.path });
    if (setUp) {
      const connection = await instance.connect();
      try {
        await setUp(connection);
      } finally {
        connection.closeSync();
      }
    }
  } catch (error) {
    instance?.closeSync();
    spill.remove();
    throw error;
  }
  const opened = instance;
  return {
    instance: opened,
    close() {
      opened.closeSync();
      spill.remove();
    },
  };
}

export async function openDatabase(options: DatabaseOptions = {}): Promise<Database> {
  const config: Record<string, string> = {};
  if (options.threads) config.threads = String(options.threads);
  if (options.memoryLimit) config.memory_limit = options.memoryLimit;
  const opened = await openInstance(config, options.spillDir);
  return databaseOver(opened.instance, () => opened.close());
}

async function databaseOver(instance: DuckDBInstance, closeInstance?: () => void): Promise<Database> {
  const connection = await instance.connect();
  // Instants are stored as TIMESTAMPTZ; show them in UTC whatever the machine's zone.
  await connection.run(`SET TimeZone = 'UTC'`);
  return {
    connection,
    async rows<T>(sql: string, params?: DuckDBValue[]) {
      const reader = await connection.runAndReadAll(sql, params);
      return reader.getRowObjectsJS() as T[];
    },
    async run(sql: string, params?: DuckDBValue[]) {
      await connection.run(sql, params);
    },
    async *stream<T>(sql: string, params?: DuckDBValue[]) {
      const result = await connection.stream(sql, params);
      const names = result.columnNames();
      for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) yield chunkRows(chunk, names) as T[];
    },
    streamJson: (sql, params) => streamJsonRows(connection, sql, params),
    connect: () => databaseOver(instance),
    close() {
      connection.closeSync();
      closeInstance?.();
    },
  };
}

/**
 * Starts `work` for each key, one after another (a connection runs one statement at a time), and
 * gives each one's promise at once, to be awaited when needed. A failure is seen by whoever awaits
 * its promise and does not stop the next; one nobody awaits (the caller failed first) is not
 * reported as unhandled. Once `signal` aborts, work not yet begun is not begun.
 */
export function inTurn<K, T>(keys: Iterable<K>, work: (key: K) => Promise<T>, signal?: AbortSignal): Map<K, Promise<T>> {
  const started = new Map<K, Promise<T>>();
  let previous: Promise<unknown> = Promise.resolve();
  for (const key of keys) {
    if (started.has(key)) continue;
    const promise = previous.then(() => {
      signal?.throwIfAborted();
      return work(key);
    });
    promise.catch(() => {});
    started.set(key, promise);
    previous = promise.catch(() => {});
  }
  return started;
}

export const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;
export const quoteString = (value: string) => `'${value.replaceAll("'", "''")}'`;
