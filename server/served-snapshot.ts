import type { DuckDBConnection } from '@duckdb/node-api';
import { openInstance, quoteString, type OpenedInstance } from '../core/db/duckdb.ts';
import { dataDirOf } from '../core/snapshot/layout.ts';
import { markReading } from '../core/snapshot/readers.ts';
import { assertShape, createViews, type Snapshot } from '../core/snapshot/read.ts';
import type { Table } from '../core/table.ts';
import type { Dataset } from '../datasets/vocabulary/dataset.ts';
import { ConnectionPool, type OnDemandConnection, type PooledConnection } from './connection-pool.ts';
import { KeptForKinds } from './kept-for-kinds.ts';
import { ensureServeDatabase, RENDERING_TABLE, SCHEMA } from './serve-database.ts';
import { ServedRecords } from './served-records.ts';
import { SnapshotTables } from './snapshot-tables.ts';
import { storagePlan } from './storage-plan.ts';

/** What the serving database file is attached as. */
const STORED = 'stored';

export interface ServedSnapshotOptions {
  readonly memoryLimit?: string;
  readonly threads?: number;
  readonly connections?: number;
  /** 'later': what the kinds keep in memory is read from the stored tables until `keepInMemory` copies it there. */
  readonly inMemory?: 'now' | 'later';
  /** false: the kinds keep nothing in this process (a page is then always found by a DuckDB statement); for comparing the two. */
  readonly inProcess?: boolean;
  /** Hears the events of opening a snapshot (its serving database being built). */
  readonly log?: (event: Record<string, unknown>) => void;
}

/**
 * A snapshot opened for answering requests, from its opening to its closing: its serving database
 * (read-only, see serve-database.ts) attached to a DuckDB instance of its own, with views over its
 * Parquet files and a pool of connections; its record files (served-records.ts); what the kinds
 * keep (kept-for-kinds.ts); and its tables as answers read them (`tables`). Requests lease it, so
 * a newer snapshot can take over while the last requests on it finish; it closes everything when
 * it is retired and the last lease ends.
 */
export class ServedSnapshot {
  private leases = 0;
  private retired = false;
  private closed = false;
  /** Things opened on demand that live and close with this snapshot, e.g. its SQL sandbox. */
  private readonly attachments = new Map<string, Promise<{ close(): void }>>();
  private whenClosed: () => void = () => {};
  /** Settles once the snapshot is closed (retired, and its last request ended). */
  readonly closing: Promise<void> = new Promise((resolve) => (this.whenClosed = resolve));

  private constructor(
    readonly snapshot: Snapshot,
    readonly datasets: readonly Dataset[],
    /** What answers read (see snapshot-tables.ts). */
    readonly tables: SnapshotTables,
    private readonly duckdb: OpenedInstance,
    private readonly pool: ConnectionPool,
    private readonly records: ServedRecords,
    private readonly kept: KeptForKinds,
    /** Removes the mark that keeps a prune off the snapshot. */
    private readonly unmark: () => void,
  ) {}

  get id(): string {
    return this.snapshot.id;
  }

  static async open(snapshot: Snapshot, datasets: readonly Dataset[], options: ServedSnapshotOptions = {}): Promise<ServedSnapshot> {
    assertShape(snapshot, datasets);
    // Marked read from now on, so that a prune leaves it (see readers.ts); unmarked when closed.
    const unmark = markReading(dataDirOf(snapshot.dir), snapshot.id);
    try {
      return await ServedSnapshot.opened(snapshot, datasets, options, unmark);
    } catch (error) {
      unmark();
      throw error;
    }
  }

  private static async opened(snapshot: Snapshot, datasets: readonly Dataset[], options: ServedSnapshotOptions, unmark: () => void): Promise<ServedSnapshot> {
    const path = await ensureServeDatabase(snapshot, datasets, options.log);
    const storedSchema = `${STORED}.${SCHEMA}`;
    const stored = new Set<string>();
    for (const dataset of datasets) {
      for (const table of Object.values(dataset.tables)) if (storagePlan(dataset, table, snapshot)) stored.add(`${dataset.name}/${table.name}`);
    }
    const isStored = (dataset: Dataset, table: Table) => stored.has(`${dataset.name}/${table.name}`);
    const kept = KeptForKinds.plan(snapshot, datasets, isStored, storedSchema, options.inProcess ?? true);
    let token = '';
    const config = {
      memory_limit: options.memoryLimit ?? '128MB',
      // Return freed memory to the system sooner (a few per cent less RSS under load).
      allocator_flush_threshold: '4MB',
      allocator_background_threads: 'true',
      threads: String(options.threads ?? 2),
    };
    const duckdb = await openInstance(config, snapshot.cacheDir, async (setup) => {
      // Read-only, so several servers may share the file; views and what the kinds keep in memory
      // live in the instance's own database, which every connection shares.
      await setup.run(`ATTACH ${quoteString(path)} AS ${STORED} (READ_ONLY)`);
      token = String((await setup.runAndReadAll(`SELECT token FROM ${storedSchema}.${RENDERING_TABLE}`)).getRows()[0]![0]);
      await createViews({ run: (sql) => setup.run(sql).then(() => undefined) }, snapshot, datasets);
      await kept.setUp((sql) => setup.run(sql), options.inMemory ?? 'now');
    });
    const prepare = async (connection: DuckDBConnection) => {
      await connection.run(`SET TimeZone = 'UTC'`);
      await connection.run(`SET parquet_metadata_cache = true`);
    };
    const pool = new ConnectionPool(duckdb.instance, options.connections ?? 4, prepare);
    // A resource whose record files cannot be read is then answered from its stored rows, rendered per request.
    const records = ServedRecords.open(snapshot, datasets, isStored, path, token, { series: options.inProcess ?? true, log: options.log });
    const tables = new SnapshotTables(snapshot, stored, storedSchema, records, kept);
    const served = new ServedSnapshot(snapshot, datasets, tables, duckdb, pool, records, kept, unmark);
    if (options.inMemory !== 'later') {
      try {
        await served.keepInMemory();
      } catch (error) {
        // Closes what it opened: the instance, the pool and the record files.
        served.retire();
        throw error;
      }
    }
    return served;
  }

  /**
   * Makes what the kinds keep in memory and in this process, when the snapshot was opened with
   * `inMemory: 'later'`: a hot swap makes it once the snapshot before is closed, so that the
   * server never holds two (the in-memory copies are among the largest things it holds). Answers
   * read the stored tables meanwhile, more slowly. False when the snapshot was retired first, and
   * so never made it all.
   */
  keepInMemory(): Promise<boolean> {
    // A snapshot already on its way out (a newer one came first) keeps reading its stored tables.
    return this.kept.keep(
      (work) => this.pool.use((pooled) => work(pooled.connection)),
      () => !this.retired && !this.closed,
    );
  }

  use<T>(work: (connection: PooledConnection) => Promise<T>): Promise<T> {
    return this.pool.use(work);
  }

  /** A connection taken at a request's first statement, if it runs one; `release` when the request ends. */
  onDemandConnection(): OnDemandConnection {
    return this.pool.onDemandConnection();
  }

  /** Opens something once per snapshot, on first use; it is closed with the snapshot. */
  attachment<T extends { close(): void }>(key: string, open: () => Promise<T>): Promise<T> {
    let attached = this.attachments.get(key);
    if (!attached) this.attachments.set(key, (attached = open()));
    return attached as Promise<T>;
  }

  /** A request starts on this snapshot; call the returned function when it ends. */
  lease(): () => void {
    this.leases++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.leases--;
      this.closeIfDone();
    };
  }

  /** A newer snapshot took over: close once the last request on this one ends. */
  retire(): void {
    this.retired = true;
    this.closeIfDone();
  }

  private closeIfDone(): void {
    if (!this.retired || this.leases > 0 || this.closed) return;
    this.closed = true;
    for (const attached of this.attachments.values())
      void attached.then(
        (a) => a.close(),
        () => undefined,
      );
    this.pool.close();
    this.duckdb.close();
    this.records.close();
    this.unmark();
    this.whenClosed();
  }
}
