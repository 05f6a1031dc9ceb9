import { StatementType, type DuckDBConnection } from '@duckdb/node-api';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import { openInstance, quoteString, type OpenedInstance } from '../../core/db/duckdb.ts';
import { createViews, type Snapshot } from '../../core/snapshot/read.ts';
import { releaseResult } from '../native-memory.ts';

/**
 * Read-only SQL over a snapshot's views. DuckDB itself is locked down: it may read files under the
 * snapshot only, may not load extensions or change settings; on top of that only a single query
 * runs (SELECT, or what DuckDB answers as one: SHOW, DESCRIBE, SUMMARIZE, PRAGMA version), within a
 * time limit, and its result within row and byte limits.
 */

export interface SqlLimits {
  readonly timeoutMs: number;
  readonly maxRows: number;
  readonly maxBytes: number;
}

export const defaultLimits: SqlLimits = { timeoutMs: 10_000, maxRows: 100_000, maxBytes: 64 * 1024 * 1024 };

export interface SqlColumn {
  readonly name: string;
  /** DuckDB type, e.g. VARCHAR, TIMESTAMP WITH TIME ZONE, DECIMAL(15,2). */
  readonly type: string;
}

export interface SqlResult {
  readonly columns: readonly SqlColumn[];
  /** Values as JSON-friendly JS: numbers, text, booleans, nulls, arrays and objects. */
  readonly rows: readonly (readonly unknown[])[];
}

/** A query the sandbox will not run, with the reason for the client. */
export class SqlRefused extends Error {}

const SAFE_INTEGER_TYPES = new Set(['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'UHUGEINT']);

/** DuckDB's JSON form writes big integers as text; small enough ones become numbers again. */
const friendly = (value: unknown, type: string) =>
  typeof value === 'string' && SAFE_INTEGER_TYPES.has(type) && Number.isSafeInteger(Number(value)) ? Number(value) : value;

export class SqlSandbox {
  private readonly idle: DuckDBConnection[] = [];
  private closed = false;

  private constructor(
    private readonly duckdb: OpenedInstance,
  ) {}

  static async open(snapshot: Snapshot, datasets: readonly Dataset[]): Promise<SqlSandbox> {
    const duckdb = await openInstance({ memory_limit: '256MB', threads: '2' }, snapshot.cacheDir, async (setup) => {
      await setup.run(`SET GLOBAL TimeZone = 'UTC'`);
      await createViews({ run: (sql) => setup.run(sql).then(() => undefined) }, snapshot, datasets);
      await setup.run(`SET allowed_directories = [${quoteString(`${snapshot.dir}/`)}]`);
      await setup.run(`SET autoinstall_known_extensions = false`);
      await setup.run(`SET autoload_known_extensions = false`);
      await setup.run(`SET enable_external_access = false`);
      await setup.run(`SET lock_configuration = true`);
    });
    return new SqlSandbox(duckdb);
  }

  async run(sql: string, limits: SqlLimits = defaultLimits): Promise<SqlResult> {
    const connection = this.idle.pop() ?? (await this.duckdb.instance.connect());
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      connection.interrupt();
    }, limits.timeoutMs);
    try {
      const statements = await connection.extractStatements(sql);
      if (statements.count !== 1) {
        // DuckDB runs a PIVOT that does not list its values as two statements: one finds them.
        const pivot = /\bpivot\b/i.test(sql) ? ' (a PIVOT without its values is run as several: list them, as in PIVOT … ON column IN (…))' : '';
        throw new SqlRefused(`send one statement at a time; DuckDB reads ${statements.count} in this text${pivot}`);
      }
      const prepared = await statements.prepare(0);
      if (prepared.statementType !== StatementType.SELECT) {
        // DuckDB files INSTALL under LOAD.
        const kind = prepared.statementType === StatementType.LOAD ? 'an INSTALL or LOAD' : `a ${StatementType[prepared.statementType]}`;
        throw new SqlRefused(`only SELECT queries run here; this is ${kind} statement`);
      }
      const result = await prepared.stream();
      const columns = result.columnNames().map((name, i) => ({ name, type: result.columnType(i).toString() }));
      // Rows are objects by column name in JSON, and columns by name in Arrow: one name, one column.
      const repeated = columns.find((column, i) => columns.findIndex((other) => other.name === column.name) !== i);
      if (repeated) throw new SqlRefused(`two columns are named ${JSON.stringify(repeated.name)}; give each its own name with AS`);
      const rows: unknown[][] = [];
      let bytes = 0;
      for await (const batch of result.yieldRowsJson()) {
        for (const row of batch) {
          const values = row.map((value, i) => friendly(value, columns[i]!.type));
          bytes += JSON.stringify(values).length;
          rows.push(values);
          if (rows.length > limits.maxRows) throw new SqlRefused(`the result has more than ${limits.maxRows} rows; add a LIMIT or aggregate`);
          if (bytes > limits.maxBytes) throw new SqlRefused(`the result is larger than ${Math.round(limits.maxBytes / 1024 / 1024)} MiB; select fewer rows or columns`);
        }
      }
      releaseResult();
      return { columns, rows };
    } catch (error) {
      if (error instanceof SqlRefused) throw error;
      if (timedOut) throw new SqlRefused(`the query ran longer than ${limits.timeoutMs / 1000} s and was stopped`);
      // DuckDB's own refusal or error (a syntax error, a missing table, a forbidden file) is the client's to fix.
      throw new SqlRefused((error as Error).message.split('\n')[0]!);
    } finally {
      clearTimeout(timer);
      if (this.closed) connection.closeSync();
      else this.idle.push(connection);
    }
  }

  close(): void {
    this.closed = true;
    for (const connection of this.idle.splice(0)) connection.closeSync();
    this.duckdb.close();
  }
}
