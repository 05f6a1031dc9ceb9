import type { DuckDBValue } from '@duckdb/node-api';
import type { Query } from '../../datasets/core/answer.ts';
import type { Dataset, Resource } from '../../datasets/core/dataset.ts';
import type { RenderContext } from '../../datasets/core/render.ts';
import { rowOrder } from '../../datasets/core/row-order.ts';
import { decodeRow } from '../db/columns.ts';
import { quoteIdentifier, type Database } from '../db/duckdb.ts';
import { readExpression } from '../db/columns.ts';
import { chooseFiles, tableSource, type Narrowing, type Snapshot } from '../snapshot/read.ts';

/**
 * A snapshot's rows as the static builder reads them: whole tables or series streamed in order,
 * in batches, from only the Parquet files that can hold them; decoded as the rendering functions
 * take them.
 */
export class SnapshotRows {
  constructor(
    private readonly db: Database,
    readonly snapshot: Snapshot,
  ) {}

  resource(dataset: Dataset, name: string): Resource {
    const resource = dataset.resources[name];
    if (!resource) throw new Error(`${dataset.name} has no resource ${name}`);
    return resource;
  }

  /** A resource's rows, narrowed, in `order` (default: the table's row order), batch by batch. */
  async *stream(dataset: Dataset, resourceName: string, narrow: Narrowing = {}, order?: readonly string[]): AsyncGenerator<Record<string, unknown>[]> {
    const resource = this.resource(dataset, resourceName);
    const table = dataset.tables[resource.table]!;
    const columns = Object.entries(table.columns).filter(([name]) => !resource.omits.includes(name));
    const values: DuckDBValue[] = [];
    const bind = (value: DuckDBValue) => `$${values.push(value)}`;
    const conditions = Object.entries(narrow.equal ?? {}).map(([column, value]) => `${quoteIdentifier(column)} = ${bind(value as string | number)}`);
    const time = table.timeColumn && quoteIdentifier(table.timeColumn);
    if (time && narrow.from !== undefined) conditions.push(`${time} >= make_timestamptz(CAST(${bind(BigInt(narrow.from) * 1000n)} AS BIGINT))`);
    if (time && narrow.to !== undefined) conditions.push(`${time} < make_timestamptz(CAST(${bind(BigInt(narrow.to) * 1000n)} AS BIGINT))`);
    const sql =
      `SELECT ${columns.map(([name, column]) => readExpression(name, column)).join(', ')} ` +
      `FROM ${tableSource(chooseFiles(this.snapshot, dataset, table.name, narrow))}` +
      (conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '') +
      ` ORDER BY ${(order ?? rowOrder(table)).map(quoteIdentifier).join(', ')}`;
    const decoded = Object.fromEntries(columns);
    for await (const batch of this.db.stream(sql, values)) yield batch.map((row) => decodeRow(row, decoded));
  }

  /** Every row of a (small) resource's table, narrowed, in row order. */
  async all(dataset: Dataset, resourceName: string, narrow: Narrowing = {}): Promise<Record<string, unknown>[]> {
    const rows: Record<string, unknown>[] = [];
    for await (const batch of this.stream(dataset, resourceName, narrow)) rows.push(...batch);
    return rows;
  }

  /** Rows of a resource's table. */
  async count(dataset: Dataset, resourceName: string): Promise<number> {
    const resource = this.resource(dataset, resourceName);
    return this.snapshot.manifest.datasets[dataset.name]!.tables[resource.table]!.rows;
  }

  /** What custom answers read, as the server gives it to them. */
  queryFor(dataset: Dataset, context: RenderContext): Query {
    return {
      rows: (resource, where = {}) => this.all(dataset, resource, { equal: where }),
      latest: async (resource, where = {}) => {
        const table = dataset.tables[this.resource(dataset, resource).table]!;
        if (!table.timeColumn) throw new Error(`${dataset.name}/${table.name} has no time column to find its latest rows by`);
        const newest = this.snapshot.manifest.datasets[dataset.name]!.tables[table.name]!.files.reduce<string | null>((max, f) => (f.max && (!max || f.max > max) ? f.max : max), null);
        if (!newest) return [];
        return this.all(dataset, resource, { equal: where, from: Date.parse(newest), to: Date.parse(newest) + 1 });
      },
      render: (resource, row) => this.resource(dataset, resource).render(row, context),
    };
  }
}
