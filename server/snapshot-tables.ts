import { Memo } from '../core/memo.ts';
import { listValue, type DuckDBValue } from '@duckdb/node-api';
import { quoteIdentifier } from '../core/db/duckdb.ts';
import { chooseFiles, tableSource, type Narrowing, type Snapshot } from '../core/snapshot/read.ts';
import { viewName } from '../core/table.ts';
import type { RenderedResource, RenderedSeries, ServedTables } from '../datasets/answers/serving.ts';
import type { Dataset, Resource } from '../datasets/vocabulary/dataset.ts';
import type { Endpoint } from '../datasets/vocabulary/endpoint.ts';
import type { KeptForKinds } from './kept-for-kinds.ts';
import type { ServedRecords } from './served-records.ts';

/**
 * A served snapshot's tables as the kinds read them to answer (ServedTables): where a resource's
 * rows are (its stored table in the serving database, or its Parquet files), its rows kept
 * rendered, what the kinds keep in memory and in this process, and lookups remembered.
 */
export class SnapshotTables implements ServedTables {
  /** Lookups in small tables, remembered: a snapshot never changes, and a round trip to DuckDB costs more than the row. */
  private readonly remembered = new Memo<string, Promise<unknown>>(10_000);

  constructor(
    readonly snapshot: Snapshot,
    /** Stored tables by `<data set>/<table>`. */
    private readonly stored: ReadonlySet<string>,
    /** `<file catalog>.served`, where stored tables are. */
    private readonly storedSchema: string,
    private readonly records: ServedRecords,
    private readonly kept: KeptForKinds,
  ) {}

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

  rendered(dataset: Dataset, resource: Resource): RenderedResource | undefined {
    return this.records.rendered(dataset, resource);
  }

  series(dataset: Dataset, resource: Resource, columns: readonly string[]): RenderedSeries | undefined {
    return this.records.series(dataset, resource, columns);
  }

  inMemory(dataset: Dataset, tableName: string): string {
    return this.kept.inMemory(dataset, tableName);
  }

  inProcess(endpoint: Endpoint): unknown {
    return this.kept.inProcess(endpoint);
  }

  isSmall(dataset: Dataset, tableName: string): boolean {
    return this.snapshot.manifest.datasets[dataset.name]!.tables[tableName]!.rows <= 10_000;
  }

  remember<T>(key: string, compute: () => Promise<T>): Promise<T> {
    let found = this.remembered.get(key);
    if (!found) {
      found = this.remembered.remember(key, compute());
      found.catch(() => this.remembered.forget(key));
    }
    return found as Promise<T>;
  }
}
