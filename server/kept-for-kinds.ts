import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdentifier } from '../core/db/duckdb.ts';
import type { Snapshot } from '../core/snapshot/read.ts';
import { viewName, type Table } from '../core/table.ts';
import type { Dataset } from '../datasets/vocabulary/dataset.ts';
import type { Endpoint } from '../datasets/vocabulary/endpoint.ts';
import { inMemoryColumns, inProcessReads, type InProcessRead } from './storage-plan.ts';

/** The in-memory schema of the copies, in the instance's own database, which every connection shares. */
export const IN_MEMORY = 'kept';

/** A stored table some kind keeps more of: the SQL copying its columns into memory, and what is read into this process. */
interface KeptTable {
  readonly dataset: Dataset;
  readonly table: Table;
  /** SQL naming the stored table. */
  readonly stored: string;
  readonly copy?: string;
  readonly reads: readonly InProcessRead[];
}

/** Runs work on a connection of the snapshot's. */
export type UseConnection = <T>(work: (connection: DuckDBConnection) => Promise<T>) => Promise<T>;

/**
 * What the kinds of a snapshot's endpoints keep to answer faster, as their storage asks
 * (Storage.inMemory, Storage.inProcess), held without knowing what it is: copies of a stored
 * table's columns in DuckDB's memory (in the stored table's row order, so a row's position there
 * is its row number in the stored table), and whatever a kind reads into this process (the page
 * kind's scan of its filter columns). Until a copy is made, the stored table stands in for it.
 */
export class KeptForKinds {
  /** Tables whose in-memory copy is made, by `<data set>/<table>`. */
  private readonly copied = new Set<string>();
  /** What was read into this process, by endpoint (its full path). */
  private readonly kept = new Map<string, unknown>();
  /** Reads done, whatever they gave. */
  private readonly read = new Set<InProcessRead>();

  private constructor(
    private readonly snapshot: Snapshot,
    private readonly tables: ReadonlyMap<string, KeptTable>,
    /** false: nothing is read into this process (every request goes to DuckDB), for comparing the two. */
    private readonly readsInProcess: boolean,
  ) {}

  /** What the kinds ask to keep of the stored tables (`isStored`), whose schema is `storedSchema`. */
  static plan(
    snapshot: Snapshot,
    datasets: readonly Dataset[],
    isStored: (dataset: Dataset, table: Table) => boolean,
    storedSchema: string,
    inProcess: boolean,
  ): KeptForKinds {
    const tables = new Map<string, KeptTable>();
    for (const dataset of datasets) {
      for (const table of Object.values(dataset.tables)) {
        if (!isStored(dataset, table)) continue;
        const columns = inMemoryColumns(dataset, table);
        const reads = inProcessReads(dataset, table);
        if (!columns && !reads.length) continue;
        const name = quoteIdentifier(viewName(dataset, table.name));
        const stored = `${storedSchema}.${name}`;
        const copy = columns && `CREATE TABLE ${IN_MEMORY}.${name} AS SELECT ${columns.map(quoteIdentifier).join(', ')} FROM ${stored}`;
        tables.set(`${dataset.name}/${table.name}`, { dataset, table, stored, ...(copy ? { copy } : {}), reads });
      }
    }
    return new KeptForKinds(snapshot, tables, inProcess);
  }

  /** Sets the snapshot's instance up for the copies with `run` as it opens, and makes them now unless they come `later` (see ServedSnapshot.keepInMemory). */
  async setUp(run: (sql: string) => Promise<unknown>, copies: 'now' | 'later'): Promise<void> {
    await run(`CREATE SCHEMA ${IN_MEMORY}`);
    if (copies === 'later') return;
    for (const [key, { copy }] of this.tables) {
      if (!copy) continue;
      await run(copy);
      this.copied.add(key);
    }
  }

  /** SQL naming the in-memory copy of a table's kept columns, or the stored table until the copy is made. */
  inMemory(dataset: Dataset, tableName: string): string {
    const key = `${dataset.name}/${tableName}`;
    const kept = this.tables.get(key);
    if (!kept?.copy) throw new Error(`${key} is not kept in memory`);
    return this.copied.has(key) ? `${IN_MEMORY}.${quoteIdentifier(viewName(dataset, tableName))}` : kept.stored;
  }

  /** What an endpoint's kind keeps in this process, once read. */
  inProcess(endpoint: Endpoint): unknown {
    return this.kept.get(endpoint.fullPath);
  }

  /**
   * Makes the copies not made yet, and reads what the kinds keep in this process, table by table,
   * while `wanted` says the snapshot still needs them; false when it stopped before the end.
   */
  async keep(use: UseConnection, wanted: () => boolean): Promise<boolean> {
    for (const [key, { dataset, table, stored, copy, reads }] of this.tables) {
      if (!wanted()) return false;
      if (copy && !this.copied.has(key)) {
        await use((connection) => connection.run(copy));
        this.copied.add(key);
      }
      if (!this.readsInProcess) continue;
      const rows = this.snapshot.manifest.datasets[dataset.name]!.tables[table.name]!.rows;
      for (const read of reads) {
        if (this.read.has(read)) continue;
        const kept = await use((connection) => read.read({ connection, from: stored, table, columns: read.columns, rows }));
        this.read.add(read);
        if (kept !== undefined) for (const endpoint of read.endpoints) this.kept.set(endpoint.fullPath, kept);
      }
    }
    return true;
  }
}
