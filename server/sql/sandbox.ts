import { readableError } from './duckdb-errors.ts';
import { ResultReturnType, StatementType, type DuckDBConnection, type DuckDBPreparedStatement } from '@duckdb/node-api';
import { openInstance, quoteString, type OpenedInstance } from '../../core/db/duckdb.ts';
import { createViews, type Snapshot, type ViewedDataset } from '../../core/snapshot/read.ts';
import { releaseResult } from '../native-memory.ts';
import { deniedIn, machineNames, withoutMachineNames } from './confinement.ts';
import { writeResult, type CopyTarget, type QueryProgress, type SqlColumn } from './export.ts';
import { friendly, infinitiesOf } from './json-values.ts';
import { defaultLimits, resultTooLarge, SqlCutShort, SqlRefused, type SqlLimits } from './limits.ts';

/**
 * Read-only SQL over a snapshot's views. DuckDB itself is locked down: it may read files under the
 * snapshot only, may not load extensions or change settings; on top of that only a single query
 * runs (SELECT, or what DuckDB answers as one: SHOW, DESCRIBE, SUMMARIZE, PRAGMA version), within a
 * time limit, and its result within row and byte limits. `odsnap sql` runs the same sandbox without
 * limits unless asked, and may let DuckDB write one file: its export's (see copy).
 */

export interface SandboxOptions {
  /** DuckDB settings over the server's (memory_limit 256MB, threads 2). */
  readonly config?: Readonly<Record<string, string>>;
  /** Files DuckDB may also write (and read), besides reading the snapshot: an export's own output file. */
  readonly writable?: readonly string[];
  /** Whether DuckDB tracks the progress of queries, for copy's onProgress (a terminal's progress line). */
  readonly progress?: boolean;
  /**
   * For queries from anyone (the server's endpoint): refuse what shows where and on which machine
   * the data lives (settings, view definitions, installation paths; see confinement.ts), and take
   * such paths out of error messages.
   */
  readonly confined?: boolean;
  /** A directory DuckDB may write in (and read), besides reading the snapshot: the server's result files. */
  readonly resultDir?: string;
  /** Where DuckDB spills what does not fit in memory (a directory of its own is made there); by default the system's temporary directory. */
  readonly spillParent?: string;
}

export type { QueryProgress } from './export.ts';

export interface SqlResult {
  readonly columns: readonly SqlColumn[];
  /** Values as JSON-friendly JS: numbers, text, booleans, nulls, arrays and objects. */
  readonly rows: readonly (readonly unknown[])[];
}

export class SqlSandbox {
  private readonly idle: DuckDBConnection[] = [];
  private readonly busy = new Set<DuckDBConnection>();
  private closed = false;

  private constructor(
    private readonly duckdb: OpenedInstance,
    private readonly infinities: Map<string, Map<unknown, string>>,
    /** Set when confined: the machine's paths and names, taken out of error messages. */
    private readonly hidden: readonly [string, string][] | undefined,
    /** The views of the snapshot's tables, named in an error about a table that is not there. */
    private readonly tables: readonly string[],
  ) {}

  static async open(snapshot: Snapshot, datasets: readonly ViewedDataset[], options: SandboxOptions = {}): Promise<SqlSandbox> {
    let infinities = new Map<string, Map<unknown, string>>();
    let tables: string[] = [];
    const duckdb = await openInstance({ memory_limit: '256MB', threads: '2', ...options.config }, options.spillParent, async (setup) => {
      infinities = await infinitiesOf(setup);
      await setup.run(`SET GLOBAL TimeZone = 'UTC'`);
      tables = await createViews({ run: (sql) => setup.run(sql).then(() => undefined) }, snapshot, datasets);
      await setup.run(
        `SET allowed_directories = [${[snapshot.dir, ...(options.resultDir ? [options.resultDir] : [])].map((dir) => quoteString(`${dir}/`)).join(', ')}]`,
      );
      if (options.writable?.length) await setup.run(`SET allowed_paths = [${options.writable.map(quoteString).join(', ')}]`);
      await setup.run(`SET autoinstall_known_extensions = false`);
      await setup.run(`SET autoload_known_extensions = false`);
      await setup.run(`SET enable_external_access = false`);
      // Progress is a setting of each connection (DuckDB will not set it globally): locked below, once set on the one connection.
      if (!options.progress) await setup.run(`SET lock_configuration = true`);
    });
    const hidden = options.confined
      ? machineNames([[snapshot.dir, '<snapshot>'], ...(options.resultDir ? [[options.resultDir, '<result>'] as [string, string]] : [])])
      : undefined;
    const sandbox = new SqlSandbox(duckdb, infinities, hidden, tables);
    if (options.progress) {
      try {
        const connection = await duckdb.instance.connect();
        sandbox.idle.push(connection);
        await connection.run(`SET enable_progress_bar = true`);
        await connection.run(`SET enable_progress_bar_print = false`);
        await connection.run(`SET progress_bar_time = 0`);
        await connection.run(`SET lock_configuration = true`);
      } catch (error) {
        sandbox.close();
        throw error;
      }
    }
    return sandbox;
  }

  /** Collects the result, within `limits` (and until `signal` aborts). */
  run(sql: string, limits: SqlLimits = defaultLimits, signal?: AbortSignal): Promise<SqlResult> {
    return this.stream(
      sql,
      limits,
      async (columns, batches) => {
        const rows: unknown[][] = [];
        for await (const batch of batches) rows.push(...batch);
        return { columns, rows };
      },
      signal,
    );
  }

  /**
   * Runs the query and gives its columns and its rows batch by batch (values as in SqlResult) to
   * `consume`, within `limits` (the time limit covers consuming too) and until `signal` aborts, and
   * answers what it answers.
   */
  stream<T>(
    sql: string,
    limits: SqlLimits,
    consume: (columns: readonly SqlColumn[], batches: AsyncIterable<unknown[][]>) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    const { infinities } = this;
    return this.query(
      sql,
      limits,
      async (prepared, columns) => {
        const result = await prepared.stream();
        async function* batches() {
          let count = 0;
          let bytes = 0;
          for await (const batch of result.yieldRowsJson()) {
            const rows: unknown[][] = [];
            for (const row of batch) {
              const values = row.map((value, i) => friendly(value, columns[i]!.type, infinities));
              if (Number.isFinite(limits.maxBytes)) {
                // A long text is measured as it is: written out as JSON first, one past the limit would take its size twice over.
                for (const value of values)
                  bytes += typeof value === 'string' ? value.length + 2 : bytes > limits.maxBytes ? 0 : (JSON.stringify(value)?.length ?? 4);
              }
              rows.push(values);
              if (++count > limits.maxRows) throw new SqlRefused(`the result has more than ${limits.maxRows} rows; add a LIMIT or aggregate`, 'rows');
              if (bytes > limits.maxBytes) throw resultTooLarge(limits.maxBytes);
            }
            yield rows;
          }
          if (result.returnType === ResultReturnType.INVALID) throw new SqlCutShort();
        }
        const answer = await consume(columns, batches());
        releaseResult();
        return answer;
      },
      signal,
    );
  }

  /**
   * Has DuckDB write the query's result to `target.path` (which the sandbox must have been opened
   * with as writable), rows never passing through JS; answers the number of rows written. A result
   * of more than limits.maxRows rows is refused once that many and one more are written (the
   * caller removes the file of a failed copy); limits.maxBytes does not apply. `onProgress` is
   * called a few times a second while it runs, when the sandbox was opened with progress; aborting
   * `signal` stops it.
   */
  copy(
    sql: string,
    target: CopyTarget,
    limits: SqlLimits,
    onProgress?: (progress: QueryProgress) => void,
    signal?: AbortSignal,
  ): Promise<{ rows: number; columns: readonly SqlColumn[] }> {
    return this.query(sql, limits, (_, columns, connection) => writeResult(connection, sql, columns, target, limits, onProgress), signal);
  }

  /** Stops every query running now (each fails with DuckDB's "Interrupted"). */
  interrupt(): void {
    for (const connection of this.busy) connection.interrupt();
  }

  /**
   * Prepares `sql` as one SELECT with its columns named apart, and gives it to `use`, within
   * limits.timeoutMs; aborting `signal` stops it too, refused with the abort's reason.
   */
  private async query<T>(
    sql: string,
    limits: SqlLimits,
    use: (prepared: DuckDBPreparedStatement, columns: readonly SqlColumn[], connection: DuckDBConnection) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    const connection = this.idle.pop() ?? (await this.duckdb.instance.connect());
    this.busy.add(connection);
    /** Why the query is being stopped, once it is: what it is refused with, whatever DuckDB then says. */
    let stopping: SqlRefused | undefined;
    let again: NodeJS.Timeout | undefined;
    // An interrupt between two of DuckDB's steps finds nothing to stop: it is repeated until the query ends.
    const stop = (reason: SqlRefused) => {
      if (stopping) return;
      stopping = reason;
      connection.interrupt();
      again = setInterval(() => connection.interrupt(), 50);
    };
    // (setTimeout would take Infinity for 1 ms.)
    const timer = Number.isFinite(limits.timeoutMs)
      ? setTimeout(() => stop(new SqlRefused(`the query ran longer than ${limits.timeoutMs / 1000} s and was stopped`, 'time')), limits.timeoutMs)
      : undefined;
    const aborted = () => stop(signal!.reason instanceof SqlRefused ? signal!.reason : new SqlRefused('the query was stopped'));
    signal?.addEventListener('abort', aborted, { once: true });
    try {
      if (signal?.aborted) aborted();
      if (stopping) throw stopping;
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
      const columns = Array.from({ length: prepared.columnCount }, (_, i) => ({ name: prepared.columnName(i), type: prepared.columnType(i).toString() }));
      // Rows are objects by column name in JSON, and columns by name in Arrow: one name, one column.
      const repeated = columns.find((column, i) => columns.findIndex((other) => other.name === column.name) !== i);
      if (repeated) throw new SqlRefused(`two columns are named ${JSON.stringify(repeated.name)}; give each its own name with AS`);
      const denied = this.hidden && (await deniedIn(connection, sql));
      if (denied) throw new SqlRefused(denied);
      const answer = await use(prepared, columns, connection);
      // Done, but past its time (a deadline is the same however the work fell), or no longer wanted.
      if (stopping) throw stopping;
      return answer;
    } catch (error) {
      if (stopping && !(error instanceof SqlRefused && error.limit)) throw stopping;
      const message = error instanceof SqlRefused ? error.message : readableError((error as Error).message, this.tables);
      const shown = this.hidden ? withoutMachineNames(message, this.hidden) : message;
      if (error instanceof SqlRefused) throw shown === message ? error : new SqlRefused(shown, error.limit);
      // DuckDB's own refusal or error (a syntax error, a missing table, a forbidden file, its memory limit) is the client's to fix.
      throw new SqlRefused(
        /^Out of Memory Error/.test(shown) ? `the query needs more memory than queries here may use: ${shown}` : shown,
        /^Out of Memory Error/.test(shown) ? 'memory' : undefined,
      );
    } finally {
      clearTimeout(timer);
      clearInterval(again);
      signal?.removeEventListener('abort', aborted);
      this.busy.delete(connection);
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
