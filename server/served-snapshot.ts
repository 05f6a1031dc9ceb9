import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { Dataset, Resource } from '../datasets/core/dataset.ts';
import { rowOrder } from '../datasets/core/row-order.ts';
import type { Table } from '../datasets/core/table.ts';
import { quoteIdentifier } from '../scripts/db/duckdb.ts';
import type { FileManifest } from '../scripts/snapshot/manifest.ts';
import { createViews, tableSource, type Snapshot } from '../scripts/snapshot/read.ts';
import { ConnectionPool, type PooledConnection } from './connection-pool.ts';

/**
 * A snapshot opened for answering requests: one DuckDB with a view per table, the tables that
 * lists page over copied into memory in list order (so a page is a scan that stops early, not a
 * sort), indexes on the keys single resources are looked up by, and a pool of connections.
 * Requests lease it, so a newer snapshot can take over while the last requests on it finish.
 */

export interface ServedSnapshotOptions {
  readonly memoryLimit?: string;
  readonly threads?: number;
  readonly connections?: number;
}

/** A table kept in memory: its DuckDB name and the columns it holds. */
export interface MemoryTable {
  readonly name: string;
  readonly columns: readonly string[];
}

/** Derived columns filters need: the text of a list column, a row's shapes. */
export const textColumn = (column: string) => `${column}__text`;
export const SHAPES_COLUMN = '__shapes';

/** Tables this small are kept in memory whole: reading them is then as cheap as a lookup. */
const SMALL_TABLE_BYTES = 4 * 1024 * 1024;

export class ServedSnapshot {
  private leases = 0;
  private retired = false;
  private closed = false;
  /** Things opened on demand that live and close with this snapshot, e.g. its SQL sandbox. */
  private readonly attachments = new Map<string, Promise<{ close(): void }>>();

  private constructor(
    readonly snapshot: Snapshot,
    readonly datasets: readonly Dataset[],
    private readonly instance: DuckDBInstance,
    private readonly pool: ConnectionPool,
    private readonly memory: ReadonlyMap<string, MemoryTable>,
  ) {}

  get id(): string {
    return this.snapshot.id;
  }

  static async open(snapshot: Snapshot, datasets: readonly Dataset[], options: ServedSnapshotOptions = {}): Promise<ServedSnapshot> {
    const instance = await DuckDBInstance.create(':memory:', {
      memory_limit: options.memoryLimit ?? '320MB',
      threads: String(options.threads ?? 2),
    });
    const setup = await instance.connect();
    const memory = new Map<string, MemoryTable>();
    try {
      await setup.run(`SET TimeZone = 'UTC'`);
      await setup.run(`SET parquet_metadata_cache = true`);
      await createViews({ run: (sql) => setup.run(sql).then(() => undefined) }, snapshot, datasets);
      for (const dataset of datasets) {
        for (const table of Object.values(dataset.tables)) {
          const plan = memoryPlan(dataset, table, snapshot);
          if (!plan) continue;
          const name = `memory_${dataset.sqlName}_${table.name}`;
          await setup.run(`CREATE TABLE ${quoteIdentifier(name)} AS SELECT ${plan.select} FROM ${quoteIdentifier(`${dataset.sqlName}_${table.name}`)} ORDER BY ${rowOrder(table).map(quoteIdentifier).join(', ')}`);
          for (const column of plan.indexed) await setup.run(`CREATE INDEX ${quoteIdentifier(`${name}_${column}`)} ON ${quoteIdentifier(name)} (${quoteIdentifier(column)})`);
          memory.set(`${dataset.name}/${table.name}`, { name, columns: plan.columns });
        }
      }
    } finally {
      setup.closeSync();
    }
    const pool = new ConnectionPool(instance, options.connections ?? 4, (connection) => connection.run(`SET TimeZone = 'UTC'`).then(() => undefined));
    return new ServedSnapshot(snapshot, datasets, instance, pool, memory);
  }

  /** The in-memory copy of a table, if it has one holding every column the resource renders. */
  memoryTable(dataset: Dataset, resource: Resource): MemoryTable | undefined {
    const table = this.memory.get(`${dataset.name}/${resource.table}`);
    const needed = Object.keys(dataset.tables[resource.table]!.columns).filter((c) => !resource.omits.includes(c));
    return table && needed.every((c) => table.columns.includes(c)) ? table : undefined;
  }

  /** A table's Parquet files, narrowed by partition values and by the min/max of its time column. */
  files(dataset: Dataset, tableName: string, narrow: { equal?: Readonly<Record<string, unknown>>; from?: number; to?: number } = {}): string[] {
    const table = dataset.tables[tableName]!;
    const entry = this.snapshot.manifest.datasets[dataset.name]!.tables[tableName]!;
    const byValue = (table.partitionBy ?? []).filter((p) => !p.part && narrow.equal && p.column in narrow.equal);
    const keep = (file: FileManifest) =>
      byValue.every((p) => file.partition[p.name] === String(narrow.equal![p.column])) &&
      (narrow.from === undefined || file.max === null || Date.parse(file.max) >= narrow.from) &&
      (narrow.to === undefined || file.min === null || Date.parse(file.min) < narrow.to);
    const chosen = entry.files.filter((file) => file.rows > 0 && keep(file));
    // An empty selection still needs a file, for the columns: the table's first (possibly empty) one.
    return (chosen.length ? chosen : entry.files.slice(0, 1)).map((file) => join(this.snapshot.dir, file.path));
  }

  /** SQL naming where a table's rows are: its in-memory copy, chosen files, or its view. */
  source(dataset: Dataset, resource: Resource, files?: readonly string[]): string {
    const memory = this.memoryTable(dataset, resource);
    if (memory) return quoteIdentifier(memory.name);
    return files ? tableSource(files) : quoteIdentifier(`${dataset.sqlName}_${resource.table}`);
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

  /** A request starts on this snapshot; `release` when it ends. */
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
    this.instance.closeSync();
  }
}

interface MemoryPlan {
  readonly select: string;
  readonly columns: string[];
  readonly indexed: string[];
}

/**
 * Which tables live in memory and with what: a table a page answer pages over (without the
 * columns its resource omits, plus what its filters derive), and any small table whole. Keys
 * that item answers look up get an index.
 */
function memoryPlan(dataset: Dataset, table: Table, snapshot: Snapshot): MemoryPlan | undefined {
  const pages = dataset.endpoints.flatMap((e) => (e.answer.kind === 'page' && dataset.resources[e.answer.resource]!.table === table.name ? [e.answer] : []));
  const bytes = snapshot.manifest.datasets[dataset.name]!.tables[table.name]!.files.reduce((n, f) => n + f.bytes, 0);
  if (!pages.length && bytes > SMALL_TABLE_BYTES) return undefined;
  const omitted = pages.length ? pages.map((p) => dataset.resources[p.resource]!.omits).reduce((a, b) => a.filter((c) => b.includes(c))) : [];
  const columns = Object.keys(table.columns).filter((c) => !omitted.includes(c));
  const derived: string[] = [];
  for (const filter of pages.flatMap((p) => Object.values(p.filters))) {
    if (filter.kind === 'partOfAny') derived.push(`lower(array_to_string(${quoteIdentifier(filter.column)}, chr(1))) AS ${quoteIdentifier(textColumn(filter.column))}`);
    if (filter.kind === 'intersects') derived.push(`${filter.shapes} AS ${quoteIdentifier(SHAPES_COLUMN)}`);
  }
  const indexed = dataset.endpoints.flatMap((e) =>
    e.answer.kind === 'item' && dataset.resources[e.answer.resource]!.table === table.name ? [...e.answer.match] : [],
  );
  return { select: [...columns.map(quoteIdentifier), ...derived].join(', '), columns, indexed: [...new Set(indexed)] };
}

