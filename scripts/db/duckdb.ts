import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';

/** One in-process DuckDB, with the session settings every part of odsnap relies on. */
export interface Database {
  readonly connection: DuckDBConnection;
  /** Rows as plain JS objects (BIGINT as bigint; cast in SQL where a number is wanted). */
  rows<T = Record<string, unknown>>(sql: string, params?: DuckDBValue[]): Promise<T[]>;
  run(sql: string, params?: DuckDBValue[]): Promise<void>;
  /** Rows in batches as DuckDB produces them, for results too large to hold at once. */
  stream<T = Record<string, unknown>>(sql: string, params?: DuckDBValue[]): AsyncGenerator<T[]>;
  close(): void;
}

export interface DatabaseOptions {
  readonly threads?: number;
  /** DuckDB memory limit, e.g. '1GB'. */
  readonly memoryLimit?: string;
  /** Where DuckDB spills what does not fit; by default it would use ./.tmp of the working directory. */
  readonly spillDir?: string;
}

export async function openDatabase(options: DatabaseOptions = {}): Promise<Database> {
  const config: Record<string, string> = {};
  if (options.threads) config.threads = String(options.threads);
  if (options.memoryLimit) config.memory_limit = options.memoryLimit;
  if (options.spillDir) config.temp_directory = options.spillDir;
  const instance = await DuckDBInstance.create(':memory:', config);
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
      for await (const rows of result.yieldRowObjectJs()) yield rows as T[];
    },
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

export const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;
export const quoteString = (value: string) => `'${value.replaceAll("'", "''")}'`;
