import { join } from 'node:path';
import { listValue, type DuckDBValue } from '@duckdb/node-api';
import type { Query } from '../../datasets/answers/index.ts';
import { ROW_BUCKET, ROW_PRINT, type StreamOptions, type TreeRows } from '../../datasets/answers/static-files.ts';
import type { Column, ColumnKind } from '../../core/table.ts';
import type { Dataset, Resource } from '../../datasets/vocabulary/dataset.ts';
import type { Table } from '../../core/table.ts';
import type { RenderContext } from '../../datasets/vocabulary/render.ts';
import { valueOf } from '../../datasets/vocabulary/written.ts';
import { rowOrder } from '../../core/row-order.ts';
import { quoteIdentifier, quoteString, type Database } from '../../core/db/duckdb.ts';
import { readExpression, rowDecoder } from '../../core/db/columns.ts';
import { chosenFiles, tableSource, type Narrowing, type Snapshot } from '../../core/snapshot/read.ts';
import { rowPrintSql } from './row-prints.ts';
import { StoredOrder } from './stored-order.ts';

/**
 * Streams over at least this many rows (by the manifest's counts of the files they read) look for
 * text columns of few values, to read them as ENUMs (see SnapshotRows.stream); below it that
 * would cost more than it saves.
 */
export const REPEATED_TEXTS_FROM = 100_000;
/** Most values a text column holds to be read as an ENUM. */
const FEW_VALUES = 4096;
/**
 * Kinds of columns read as values as they are: numbers, booleans, short texts (days, decimals),
 * and JSON, which is one text either way (and mostly null: `extra`).
 */
const VALUE_KINDS: ReadonlySet<ColumnKind> = new Set(['integer', 'double', 'boolean', 'day', 'instant', 'decimal', 'json']);

/** A resource of a data set, by name. */
export function resourceIn(dataset: Dataset, name: string): Resource {
  const resource = dataset.resources[name];
  if (!resource) throw new Error(`${dataset.name} has no resource ${name}`);
  return resource;
}

/** A resource's table and the columns its rendering reads. */
export function columnsOf(dataset: Dataset, resourceName: string) {
  const resource = resourceIn(dataset, resourceName);
  const table = dataset.tables[resource.table]!;
  return { table, columns: Object.entries(table.columns).filter(([name]) => !resource.omits.includes(name)) };
}

/** The Parquet files that can hold a table's rows so narrowed, SQL conditions narrowing their rows, and how many rows the files hold. */
export function selection(snapshot: Snapshot, dataset: Dataset, table: Table, narrow: Narrowing, bind: (value: DuckDBValue) => string) {
  const where = Object.entries(narrow.equal ?? {}).map(([column, value]) => `${quoteIdentifier(column)} = ${bind(value as string | number)}`);
  const time = table.timeColumn && quoteIdentifier(table.timeColumn);
  if (time && narrow.from !== undefined) where.push(`${time} >= make_timestamptz(CAST(${bind(BigInt(narrow.from) * 1000n)} AS BIGINT))`);
  if (time && narrow.to !== undefined) where.push(`${time} < make_timestamptz(CAST(${bind(BigInt(narrow.to) * 1000n)} AS BIGINT))`);
  const files = chosenFiles(snapshot, dataset, table.name, narrow);
  // What the files hold: at least the rows selected.
  const rows = files.reduce((sum, file) => sum + file.rows, 0);
  return { source: tableSource(files.map((file) => join(snapshot.dir, file.path))), where, rows };
}

/**
 * A snapshot's rows as the static builder reads them: whole tables or series streamed in order,
 * in batches, from only the Parquet files that can hold them; decoded as the rendering functions
 * take them.
 */
export class SnapshotRows implements TreeRows {
  private readonly storedOrder: StoredOrder;

  constructor(
    private readonly db: Database,
    readonly snapshot: Snapshot,
    /** See REPEATED_TEXTS_FROM; 0 looks in every stream. */
    private readonly repeatedTextsFrom = REPEATED_TEXTS_FROM,
  ) {
    this.storedOrder = new StoredOrder(snapshot);
  }

  resource(dataset: Dataset, name: string): Resource {
    return resourceIn(dataset, name);
  }

  /**
   * A resource's rows, narrowed, in `order` (default: the table's row order), batch by batch;
   * with `among`, only those whose column holds one of the values; with `window`, only the rows
   * at those positions of the order.
   *
   * Rows cross from DuckDB one of two ways. By default each as one JSON text (see asJsonRows):
   * the binding decodes every string on its own, and a register row has dozens. But the long
   * series (readings, rides) are numbers and a few texts that repeat (a station, a zone): these
   * are read as ENUMs of the values the rows hold, which cross as small integers, and the rows
   * then as values, column by column: for millions of such rows, several times faster than JSON.
   */
  async *stream(dataset: Dataset, resourceName: string, narrow: Narrowing = {}, options: StreamOptions = {}): AsyncGenerator<Record<string, unknown>[]> {
    const { table, columns } = columnsOf(dataset, resourceName);
    const { among, window, withPrints } = options;
    const values: DuckDBValue[] = [];
    const bind = (value: DuckDBValue) => `$${values.push(value)}`;
    const { source, where, rows } = selection(this.snapshot, dataset, table, narrow, bind);
    if (among) where.push(`CAST(${quoteIdentifier(among.column)} AS VARCHAR) IN (SELECT unnest(${bind(listValue([...among.values]))}::VARCHAR[]))`);
    const selected = `FROM ${source}` + (where.length ? ` WHERE ${where.join(' AND ')}` : '');
    const few = rows >= this.repeatedTextsFrom ? await this.fewValues(columns, narrow, selected, [...values]) : undefined;
    const read = ([name, column]: [string, Column]) => {
      const texts = few?.get(name);
      // A text column of nulls alone (upstream_json, where the upstream writes as odsnap renders).
      if (texts?.length === 0) return `CAST(NULL AS VARCHAR) AS ${quoteIdentifier(name)}`;
      return texts ? `CAST(${quoteIdentifier(name)} AS ENUM(${texts.map(quoteString).join(', ')})) AS ${quoteIdentifier(name)}` : readExpression(name, column);
    };
    const decode = rowDecoder(Object.fromEntries(columns));
    if (withPrints) {
      const sql = withPrintsSql(table, columns.map(read).join(', '), source, where, withPrints);
      for await (const batch of few ? this.db.stream(sql, values) : this.db.streamJson(sql, values))
        yield batch.map((row) => {
          row[ROW_BUCKET] = Number(row[ROW_BUCKET]);
          return decode(row);
        });
      return;
    }
    const wanted = options.order ?? rowOrder(table);
    // The IN filter is a join, which keeps no order; the few rows it passes are sorted.
    const stored = !among && (await this.storedOrder.holds(this.db, dataset, table, narrow, wanted));
    const sql =
      `SELECT ${columns.map(read).join(', ')} ${selected}` +
      (stored ? '' : ` ORDER BY ${wanted.map(quoteIdentifier).join(', ')}`) +
      // DuckDB skips the rows before the window itself: they never become JS objects. Rows read
      // in stored order get no LIMIT: to keep their order, DuckDB holds every row up to it before
      // passing on the first (a register's list, all of it), where the stream is cut here instead.
      (window ? `${stored ? '' : ` LIMIT ${bind(window.limit)}`} OFFSET ${bind(window.offset)}` : '');
    let left = stored && window ? window.limit : Infinity;
    if (left <= 0) return;
    for await (const batch of few ? this.db.stream(sql, values) : this.db.streamJson(sql, values)) {
      const taken = batch.length > left ? batch.slice(0, left) : batch;
      left -= taken.length;
      yield taken.map(decode);
      if (left === 0) return;
    }
  }

  /**
   * The values of each text column among `columns` within the selection, when the others are all
   * of VALUE_KINDS and each text column holds at most FEW_VALUES values; else undefined. Those
   * `narrow` fixes are known (a series' station and sensor); the others are asked of DuckDB.
   */
  private async fewValues(
    columns: readonly [string, Column][],
    narrow: Narrowing,
    selected: string,
    values: DuckDBValue[],
  ): Promise<ReadonlyMap<string, string[]> | undefined> {
    if (columns.some(([, column]) => column.kind !== 'varchar' && !VALUE_KINDS.has(column.kind))) return undefined;
    const texts = columns.filter(([, column]) => column.kind === 'varchar').map(([name]) => name);
    const fixed = narrow.equal ?? {};
    const few = new Map(texts.filter((name) => name in fixed).map((name) => [name, [String(fixed[name])]]));
    const asked = texts.filter((name) => !few.has(name)).map((name) => ({ name, q: quoteIdentifier(name) }));
    if (!asked.length) return few;
    // An estimate first: listing the values of a column of ids would cost a table's worth of memory.
    const [counts] = await this.db.rows<Record<string, bigint>>(
      `SELECT ${asked.map(({ q }, i) => `approx_count_distinct(${q}) AS c${i}`).join(', ')} ${selected}`,
      values,
    );
    if (asked.some((_, i) => Number(counts![`c${i}`]) > FEW_VALUES)) return undefined;
    // In text order, so that sorting by the ENUM sorts by the text.
    const [lists] = await this.db.rows<Record<string, string[] | null>>(
      `SELECT ${asked.map(({ q }, i) => `list(DISTINCT ${q} ORDER BY ${q}) FILTER (WHERE ${q} IS NOT NULL) AS c${i}`).join(', ')} ${selected}`,
      values,
    );
    for (const [i, { name }] of asked.entries()) few.set(name, lists![`c${i}`] ?? []);
    return [...few.values()].every((list) => list.length <= FEW_VALUES) ? few : undefined;
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
        const newest = this.snapshot.manifest.datasets[dataset.name]!.tables[table.name]!.files.reduce<string | null>(
          (max, f) => (f.max && (!max || f.max > max) ? f.max : max),
          null,
        );
        if (!newest) return [];
        return this.all(dataset, resource, { equal: where, from: Date.parse(newest), to: Date.parse(newest) + 1 });
      },
      render: (resource, row) => this.resource(dataset, resource).render(row, context),
      value: (resource, row) => valueOf(this.resource(dataset, resource).render(row, context)) as Record<string, unknown>,
    };
  }
}

/**
 * The query of rows with their prints (see StreamOptions.withPrints), each worked out from its row
 * as the prints tables work it out (no join to them: its hash table held a register's keys). The
 * prints' columns are named so that no column of the table can be mistaken for one; no order is
 * asked for: sorting a register's wide rows would cost more than reading them.
 */
function withPrintsSql(
  table: Table,
  list: string,
  source: string,
  where: readonly string[],
  { prints, buckets }: NonNullable<StreamOptions['withPrints']>,
): string {
  const printed = `SELECT *, ${rowPrintSql(table, prints.keyColumn, '__')} FROM ${source}` + (where.length ? ` WHERE ${where.join(' AND ')}` : '');
  const chosen = buckets ? ` WHERE __b IN (${buckets.map((bucket) => `${Math.trunc(bucket)}`).join(', ') || 'NULL'})` : '';
  return `SELECT ${list}, CAST(__h AS VARCHAR) AS ${ROW_PRINT}, __b AS ${ROW_BUCKET} FROM (${printed})${chosen}`;
}
