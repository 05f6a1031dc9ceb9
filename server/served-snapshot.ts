import { listValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { openInstance, quoteIdentifier, quoteString, type OpenedInstance } from '../core/db/duckdb.ts';
import { dataDirOf } from '../core/snapshot/layout.ts';
import { markReading } from '../core/snapshot/readers.ts';
import { assertShape, chooseFiles, createViews, tableSource, type Narrowing, type Snapshot } from '../core/snapshot/read.ts';
import { viewName, type Table } from '../core/table.ts';
import type { RenderedResource, ServedTables } from '../datasets/answers/serving.ts';
import type { Dataset, Resource } from '../datasets/vocabulary/dataset.ts';
import { ConnectionPool, type OnDemandConnection, type PooledConnection } from './connection-pool.ts';
import { RecordFile } from './record-store.ts';
import { ensureServeDatabase, recordFile, recordsDir, RENDERING_TABLE, SCHEMA } from './serve-database.ts';
import { filterColumns, keptInProcess, recordedResources, storagePlan } from './storage-plan.ts';

/** The base goes inside JSON strings: escaped as JSON would write it. */
const inString = (base: string) => JSON.stringify(base).slice(1, -1);

/** What the serving database file is attached as, and the in-memory schema of page copies. */
const STORED = 'stored';
const PAGES = 'pages';

export interface ServedSnapshotOptions {
  readonly memoryLimit?: string;
  readonly threads?: number;
  readonly connections?: number;
  /** 'later': page filters read the stored table until `keepPagesInMemory` copies their columns into memory. */
  readonly pagesInMemory?: 'now' | 'later';
  /** false: every page is found by a DuckDB statement, none by a scan in this process (page/scan.ts); for comparing the two. */
  readonly pageScans?: boolean;
  /** Hears the events of opening a snapshot (its serving database being built). */
  readonly log?: (event: Record<string, unknown>) => void;
}

const NOTHING = new Uint8Array(0);

/** A table whose pages are read from an in-memory copy of its filter columns, with the SQL making the copy. */
interface PagedTable {
  readonly dataset: Dataset;
  readonly table: Table;
  readonly copy: string;
}

/**
 * A snapshot opened for answering requests: its serving database (read-only, see
 * serve-database.ts), the columns page filters read (but lists of ids) copied into memory (in the
 * stored table's row order, so a row's position there is its row number in the stored table),
 * views over its Parquet files, a pool of connections, and the files each request needs, chosen
 * from the manifest. Requests lease it, so a newer snapshot can take over while the last
 * requests on it finish.
 */
export class ServedSnapshot implements ServedTables {
  private leases = 0;
  private retired = false;
  private closed = false;
  /** Things opened on demand that live and close with this snapshot, e.g. its SQL sandbox. */
  private readonly attachments = new Map<string, Promise<{ close(): void }>>();
  /** Bases as they go into rendered JSON, as UTF-8 (see baseBytes). */
  private readonly bases = new Map<string, Buffer>();
  /** Each resource stored rendered, as answers read it, by `<data set>/<resource>`. */
  private readonly renderedOf = new Map<string, RenderedResource>();
  /** Where a rendering's links were found in the text being answered (kept between answers, which are made one at a time). */
  private linkPositions = new Uint32Array(1024);
  /** Paged tables whose in-memory copy is made (see keepPagesInMemory). */
  private readonly inMemory = new Set<string>();
  /** What paged tables' kinds keep in this process, once read (see keepPagesInMemory). */
  private readonly kept = new Map<string, unknown>();
  private whenClosed: () => void = () => {};
  /** Settles once the snapshot is closed (retired, and its last request ended). */
  readonly closing: Promise<void> = new Promise((resolve) => (this.whenClosed = resolve));
  /** Lookups in small tables, remembered: a snapshot never changes, and a round trip to DuckDB costs more than the row. */
  private readonly remembered = new Map<string, Promise<unknown>>();

  private constructor(
    readonly snapshot: Snapshot,
    readonly datasets: readonly Dataset[],
    private readonly duckdb: OpenedInstance,
    private readonly pool: ConnectionPool,
    /** Stored tables by `<data set>/<table>`. */
    private readonly stored: ReadonlySet<string>,
    /** Tables whose pages are read from an in-memory copy of their filter columns, by `<data set>/<table>`, with the SQL making it. */
    private readonly paged: ReadonlyMap<string, PagedTable>,
    /** `<file catalog>.served`, where stored tables are. */
    private readonly storedSchema: string,
    /** What stands for the links' base in rendered texts, as UTF-8. */
    private readonly tokenBytes: Buffer,
    /** Record files of the resources stored rendered, by `<data set>/<resource>` (see record-store.ts). */
    private readonly records: ReadonlyMap<string, RecordFile>,
    /** Removes the mark that keeps a prune off the snapshot. */
    private readonly unmark: () => void,
    private readonly pageScans: boolean,
  ) {
    for (const [key, file] of records) this.renderedOf.set(key, { records: file, withBase: this.withBase });
  }

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
    const stored = new Set<string>();
    const paged = new Map<string, PagedTable>();
    let token = '';
    const storedSchema = `${STORED}.${SCHEMA}`;
    const config = {
      memory_limit: options.memoryLimit ?? '128MB',
      // Return freed memory to the system sooner (a few per cent less RSS under load).
      allocator_flush_threshold: '4MB',
      allocator_background_threads: 'true',
      threads: String(options.threads ?? 2),
    };
    const duckdb = await openInstance(config, snapshot.cacheDir, async (setup) => {
      // Read-only, so several servers may share the file; views and page copies live in memory,
      // in the instance's own database, which every connection shares.
      await setup.run(`ATTACH ${quoteString(path)} AS ${STORED} (READ_ONLY)`);
      await setup.run(`CREATE SCHEMA ${PAGES}`);
      token = String((await setup.runAndReadAll(`SELECT token FROM ${storedSchema}.${RENDERING_TABLE}`)).getRows()[0]![0]);
      await createViews({ run: (sql) => setup.run(sql).then(() => undefined) }, snapshot, datasets);
      for (const dataset of datasets) {
        for (const table of Object.values(dataset.tables)) {
          if (!storagePlan(dataset, table, snapshot)) continue;
          stored.add(`${dataset.name}/${table.name}`);
          const columns = filterColumns(dataset, table);
          if (!columns) continue;
          const name = viewName(dataset, table.name);
          const copy = `CREATE TABLE ${PAGES}.${quoteIdentifier(name)} AS SELECT ${columns.map(quoteIdentifier).join(', ')} FROM ${storedSchema}.${quoteIdentifier(name)}`;
          paged.set(`${dataset.name}/${table.name}`, { dataset, table, copy });
          if (options.pagesInMemory !== 'later') await setup.run(copy);
        }
      }
    });
    const prepare = async (connection: DuckDBConnection) => {
      await connection.run(`SET TimeZone = 'UTC'`);
      await connection.run(`SET parquet_metadata_cache = true`);
    };
    const pool = new ConnectionPool(duckdb.instance, options.connections ?? 4, prepare);
    const records = new Map<string, RecordFile>();
    for (const dataset of datasets) {
      for (const table of Object.values(dataset.tables)) {
        if (!stored.has(`${dataset.name}/${table.name}`)) continue;
        for (const { resource } of recordedResources(dataset, table)) {
          const file = recordFile(recordsDir(path), viewName(dataset, table.name), resource.name);
          try {
            records.set(`${dataset.name}/${resource.name}`, RecordFile.open(file));
          } catch (error) {
            // The resource is then answered from its stored rows, rendered per request.
            options.log?.({ event: 'record-file-unreadable', snapshot: snapshot.id, file, error: (error as Error).message });
          }
        }
      }
    }
    const served = new ServedSnapshot(snapshot, datasets, duckdb, pool, stored, paged, storedSchema, Buffer.from(token), records, unmark, options.pageScans ?? true);
    if (options.pagesInMemory !== 'later') {
      for (const key of paged.keys()) served.inMemory.add(key);
      try {
        await served.keepPagesInMemory();
      } catch (error) {
        // Closes what it opened: the instance, the pool and the record files.
        served.retire();
        throw error;
      }
    }
    return served;
  }

  /** Whether a table's rows are in the serving database (else only in Parquet files). */
  isStored(dataset: Dataset, tableName: string): boolean {
    return this.stored.has(`${dataset.name}/${tableName}`);
  }

  /** A table's Parquet files, narrowed by partition values and by the min/max of its time column. */
  files(dataset: Dataset, tableName: string, narrow: Narrowing = {}): string[] {
    return chooseFiles(this.snapshot, dataset, tableName, narrow);
  }

  /**
   * SQL naming where a resource's rows are: its stored table, or else the chosen Parquet files,
   * bound as one list parameter so that the statement's text, and its prepared plan, stay the same
   * whichever files a request needs.
   */
  source(dataset: Dataset, resource: Resource, files?: readonly string[], bind?: (value: DuckDBValue) => string): string {
    const name = quoteIdentifier(viewName(dataset, resource.table));
    if (this.isStored(dataset, resource.table)) return `${this.storedSchema}.${name}`;
    if (!files) return name;
    return bind ? `read_parquet(${bind(listValue([...files]))}::VARCHAR[], hive_partitioning = false)` : tableSource(files);
  }

  /** A resource's rows kept rendered, if they are: its record file, and how the links' base goes into its texts. */
  rendered(dataset: Dataset, resource: Resource): RenderedResource | undefined {
    return this.renderedOf.get(`${dataset.name}/${resource.name}`);
  }

  private readonly withBase = (bytes: Buffer, base: string, before: Uint8Array = NOTHING, after: Uint8Array = NOTHING): Buffer => {
    const { tokenBytes } = this;
    const baseBytes = this.baseBytes(base);
    let count = 0;
    for (let at = bytes.indexOf(tokenBytes); at >= 0; at = bytes.indexOf(tokenBytes, at + tokenBytes.length)) {
      if (count === this.linkPositions.length) {
        const more = new Uint32Array(2 * count);
        more.set(this.linkPositions);
        this.linkPositions = more;
      }
      this.linkPositions[count++] = at;
    }
    // One buffer, the size of the answer: the base spliced in where each link's token was.
    const out = Buffer.allocUnsafe(before.length + bytes.length + count * (baseBytes.length - tokenBytes.length) + after.length);
    out.set(before);
    let to = before.length;
    let from = 0;
    for (let i = 0; i < count; i++) {
      const at = this.linkPositions[i]!;
      to += bytes.copy(out, to, from, at);
      to += baseBytes.copy(out, to);
      from = at + tokenBytes.length;
    }
    to += bytes.copy(out, to, from);
    out.set(after, to);
    return out;
  };

  /** A base as it goes into rendered JSON, as UTF-8, remembered (requests come with one or a few). */
  private baseBytes(base: string): Buffer {
    let bytes = this.bases.get(base);
    if (!bytes) {
      if (this.bases.size >= 64) this.bases.clear();
      this.bases.set(base, (bytes = Buffer.from(inString(base))));
    }
    return bytes;
  }

  /**
   * The in-memory copy of what a table's page filters read; rows match the stored table's by row
   * number. Until the copy is made (see `keepPagesInMemory`), the stored table itself, which holds
   * the same columns in the same order on disk.
   */
  filtered(dataset: Dataset, tableName: string): string {
    const key = `${dataset.name}/${tableName}`;
    if (!this.paged.has(key)) throw new Error(`${dataset.name}/${tableName} is not paged`);
    const name = quoteIdentifier(viewName(dataset, tableName));
    return this.inMemory.has(key) ? `${PAGES}.${name}` : `${this.storedSchema}.${name}`;
  }

  /**
   * Makes the in-memory copies of the paged tables' filter columns, when the snapshot was opened
   * with `pagesInMemory: 'later'`: a hot swap makes them once the snapshot before is closed, so
   * that the server never holds two (a copy is among the largest things it holds). Pages read
   * the stored table meanwhile, more slowly. Their scanned columns are read into this process then
   * too. False when the snapshot was retired first, and so never copied them all.
   */
  async keepPagesInMemory(): Promise<boolean> {
    for (const [key, paged] of this.paged) {
      // A snapshot already on its way out (a newer one came first) keeps reading its stored table.
      if (this.retired || this.closed) return false;
      if (!this.inMemory.has(key)) {
        await this.use((connection) => connection.connection.run(paged.copy));
        this.inMemory.add(key);
      }
      const keep = this.pageScans && !this.kept.has(key) ? keptInProcess(paged.dataset, paged.table) : undefined;
      if (keep) {
        const from = `${this.storedSchema}.${quoteIdentifier(viewName(paged.dataset, paged.table.name))}`;
        const rows = this.snapshot.manifest.datasets[paged.dataset.name]!.tables[paged.table.name]!.rows;
        const kept = await this.use((connection) => keep.read({ connection: connection.connection, from, table: paged.table, columns: keep.columns, rows }));
        if (kept !== undefined) this.kept.set(key, kept);
      }
    }
    return true;
  }

  /** What a paged table's kind keeps in this process, once read (see keepPagesInMemory). */
  inProcess(dataset: Dataset, tableName: string): unknown {
    return this.kept.get(`${dataset.name}/${tableName}`);
  }

  /** Whether a table is small enough for its lookups to be remembered. */
  isSmall(dataset: Dataset, tableName: string): boolean {
    return this.snapshot.manifest.datasets[dataset.name]!.tables[tableName]!.rows <= 10_000;
  }

  remember<T>(key: string, compute: () => Promise<T>): Promise<T> {
    let found = this.remembered.get(key);
    if (!found) {
      if (this.remembered.size >= 10_000) this.remembered.clear();
      this.remembered.set(key, (found = compute()));
      found.catch(() => this.remembered.delete(key));
    }
    return found as Promise<T>;
  }

  /** Opens something once per snapshot, on first use; it is closed with the snapshot. */
  attachment<T extends { close(): void }>(key: string, open: () => Promise<T>): Promise<T> {
    let attached = this.attachments.get(key);
    if (!attached) this.attachments.set(key, (attached = open()));
    return attached as Promise<T>;
  }

  use<T>(work: (connection: PooledConnection) => Promise<T>): Promise<T> {
    return this.pool.use(work);
  }

  /** A connection taken at a request's first statement, if it runs one; `release` when the request ends. */
  onDemand(): OnDemandConnection {
    return this.pool.onDemand();
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
    for (const attached of this.attachments.values()) void attached.then((a) => a.close(), () => undefined);
    this.pool.close();
    this.duckdb.close();
    for (const records of this.records.values()) records.close();
    this.unmark();
    this.whenClosed();
  }
}
