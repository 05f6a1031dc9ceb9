import { Memo } from '../core/memo.ts';
import type { DuckDBConnection, DuckDBInstance, DuckDBPreparedStatement, DuckDBValue } from '@duckdb/node-api';
import { asJsonRows, chunkRows } from '../core/db/duckdb.ts';
import type { RowReading, StatementRunner } from '../datasets/answers/serving.ts';
import { releaseResult } from './native-memory.ts';

/** A connection lent to one request at a time, keeping its prepared statements between requests. */
export class PooledConnection implements StatementRunner {
  private readonly statements = new Memo<string, DuckDBPreparedStatement>(256);

  constructor(readonly connection: DuckDBConnection) {}

  /** Rows of a statement prepared once per connection and SQL text; `values` bind to $1, $2, … */
  async rows(sql: string, values: readonly DuckDBValue[] = [], reading: RowReading = 'columns'): Promise<Record<string, unknown>[]> {
    const text = reading === 'json' ? asJsonRows(sql) : sql;
    let statement = this.statements.get(text);
    if (!statement) {
      statement = await this.connection.prepare(text);
      this.statements.remember(text, statement);
    }
    statement.clearBindings();
    if (values.length) statement.bind([...values]);
    const result = await statement.run();
    // A materialized result is already in memory: its chunks are read synchronously, where the
    // binding's reader would hand each chunk over from a worker thread (a wake-up each way).
    const names = result.columnNames();
    const rows: Record<string, unknown>[] = [];
    for (let c = 0; c < result.chunkCount; c++) {
      const chunk = result.getChunk(c);
      if (reading === 'json') for (const text of chunk.getColumnValues(0)) rows.push(JSON.parse(text as string) as Record<string, unknown>);
      else rows.push(...chunkRows(chunk, names));
    }
    releaseResult();
    return rows;
  }

  close(): void {
    this.statements.clear();
    this.connection.closeSync();
  }
}

/** Connections to one DuckDB, handed out one request each; callers wait when all are busy. */
export class ConnectionPool {
  private readonly idle: PooledConnection[] = [];
  private readonly waiting: ((connection: PooledConnection) => void)[] = [];
  private created = 0;

  constructor(
    private readonly instance: DuckDBInstance,
    private readonly size: number,
    private readonly prepare: (connection: DuckDBConnection) => Promise<void> = async () => {},
  ) {}

  async use<T>(work: (connection: PooledConnection) => Promise<T>): Promise<T> {
    const connection = await this.acquire();
    try {
      return await work(connection);
    } finally {
      this.giveBack(connection);
    }
  }

  /**
   * A runner that takes a connection at its first statement and keeps it until `release`: a
   * request answered without a statement (an item from its record file) then never waits for one.
   */
  onDemandConnection(): OnDemandConnection {
    return new OnDemandConnection(this);
  }

  /** A connection for the caller alone until `giveBack`; waits when all are busy. */
  async acquire(): Promise<PooledConnection> {
    const idle = this.idle.pop();
    if (idle) return idle;
    if (this.created < this.size) {
      this.created++;
      const connection = await this.instance.connect();
      await this.prepare(connection);
      return new PooledConnection(connection);
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  giveBack(connection: PooledConnection): void {
    const next = this.waiting.shift();
    if (next) next(connection);
    else this.idle.push(connection);
  }

  close(): void {
    for (const connection of this.idle.splice(0)) connection.close();
  }
}

/** See ConnectionPool.onDemandConnection. */
export class OnDemandConnection implements StatementRunner {
  private taken?: Promise<PooledConnection>;

  constructor(private readonly pool: ConnectionPool) {}

  async rows(sql: string, values?: readonly DuckDBValue[], reading?: RowReading): Promise<Record<string, unknown>[]> {
    return (await (this.taken ??= this.pool.acquire())).rows(sql, values, reading);
  }

  release(): void {
    if (this.taken) void this.taken.then((connection) => this.pool.giveBack(connection));
    this.taken = undefined;
  }
}
