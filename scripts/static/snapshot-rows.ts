import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { listValue, type DuckDBValue } from '@duckdb/node-api';
import type { Query } from '../../datasets/core/answer.ts';
import type { Column } from '../../datasets/core/column.ts';
import type { Dataset, Resource } from '../../datasets/core/dataset.ts';
import type { Table } from '../../datasets/core/table.ts';
import type { RenderContext } from '../../datasets/core/render.ts';
import { rowOrder } from '../../datasets/core/row-order.ts';
import { rowDecoder } from '../db/columns.ts';
import { inTurn, quoteIdentifier, quoteString, type Database } from '../db/duckdb.ts';
import { readExpression } from '../db/columns.ts';
import { chooseFiles, tableSource, type Narrowing, type Snapshot } from '../snapshot/read.ts';

/** DuckDB's hash of a row's columns (64 bits). */
const rowHash = (columns: readonly [string, Column][]) => `hash(${columns.map(([name]) => quoteIdentifier(name)).join(', ')})`;

/**
 * Whether the chosen files, read in manifest order, already give rows in `order`, so DuckDB need
 * not sort them (a sort of wide rows is what costs memory): each file holds its rows in row order,
 * and DuckDB keeps the order of files and rows. That is so when, leaving out the columns `narrow`
 * fixes, the order asked is the stored one, and every partition is either fixed too or a year or
 * month of the first column of that order (manifest order is then time order).
 */
function inStoredOrder(table: Table, narrow: Narrowing, order: readonly string[]): boolean {
  const fixed = new Set(Object.keys(narrow.equal ?? {}));
  const stored = rowOrder(table).filter((column) => !fixed.has(column));
  const asked = order.filter((column) => !fixed.has(column));
  if (asked.length !== stored.length || asked.some((column, i) => column !== stored[i])) return false;
  return (table.partitionBy ?? []).every((partition) => (partition.part ? partition.column === stored[0] : fixed.has(partition.column)));
}

/**
 * A snapshot's rows as the static builder reads them: whole tables or series streamed in order,
 * in batches, from only the Parquet files that can hold them; decoded as the rendering functions
 * take them.
 */
export interface StreamOptions {
  readonly order?: readonly string[];
  readonly among?: { readonly column: string; readonly values: readonly string[] };
  readonly window?: { readonly offset: number; readonly limit: number };
}

/** A group's count and fingerprint (hex) within one Parquet file, as the prints cache keeps it. */
interface FileGroup {
  readonly values: string[];
  readonly unit: string;
  readonly n: number;
  readonly h: string;
}

const compareTexts = (a: readonly string[], b: readonly string[]) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return 0;
};

export class SnapshotRows {
  private readonly printsUsed = new Set<string>();
  private lastPrints: { readonly key: string; readonly prints: Promise<[string, string][]> } | undefined;
  /** Prints being read ahead (see readAhead), by key, until asked for. */
  private readonly ahead = new Map<string, Promise<[string, string][]>>();

  constructor(
    private readonly db: Database,
    readonly snapshot: Snapshot,
    /** Where the group prints of Parquet files are kept between builds; none: read every time. */
    private readonly printsCache?: string,
  ) {}

  resource(dataset: Dataset, name: string): Resource {
    const resource = dataset.resources[name];
    if (!resource) throw new Error(`${dataset.name} has no resource ${name}`);
    return resource;
  }

  /**
   * A resource's rows, narrowed, in `order` (default: the table's row order), batch by batch;
   * with `among`, only those whose column holds one of the values; with `window`, only the rows
   * at those positions of the order.
   */
  async *stream(dataset: Dataset, resourceName: string, narrow: Narrowing = {}, options: StreamOptions = {}): AsyncGenerator<Record<string, unknown>[]> {
    const { table, columns } = this.columnsOf(dataset, resourceName);
    const { among, window } = options;
    const values: DuckDBValue[] = [];
    const bind = (value: DuckDBValue) => `$${values.push(value)}`;
    const { source, where } = this.selection(dataset, table, narrow, bind);
    if (among) where.push(`CAST(${quoteIdentifier(among.column)} AS VARCHAR) IN (SELECT unnest(${bind(listValue([...among.values]))}::VARCHAR[]))`);
    const wanted = options.order ?? rowOrder(table);
    const sql =
      `SELECT ${columns.map(([name, column]) => readExpression(name, column)).join(', ')} FROM ${source}` +
      (where.length ? ` WHERE ${where.join(' AND ')}` : '') +
      // The IN filter is a join, which keeps no order; the few rows it passes are sorted.
      (!among && inStoredOrder(table, narrow, wanted) ? '' : ` ORDER BY ${wanted.map(quoteIdentifier).join(', ')}`) +
      // DuckDB skips the rows before the window itself: they never become JS objects.
      (window ? ` LIMIT ${bind(window.limit)} OFFSET ${bind(window.offset)}` : '');
    const decode = rowDecoder(Object.fromEntries(columns));
    for await (const batch of this.db.streamJson(sql, values)) yield batch.map(decode);
  }

  /**
   * Every row's key and print (see rowPrints). The last ones read are kept: a list and its items,
   * declared one after the other, read the same (their resources differ, their table does not).
   */
  prints(dataset: Dataset, resourceName: string, keyColumn: string): Promise<[string, string][]> {
    const key = this.printsKey(dataset, resourceName, keyColumn);
    if (this.lastPrints?.key !== key) {
      const prints = this.ahead.get(key) ?? this.readPrints(this.db, dataset, resourceName, keyColumn);
      this.ahead.delete(key);
      this.lastPrints = { key, prints };
    }
    return this.lastPrints.prints;
  }

  /**
   * Starts reading the prints of these resources, one after another on `db` (another connection
   * to the same database), so that each is ready when `prints` asks for it. A rebuild spends most
   * of its time on the main thread (carrying unchanged files), where DuckDB would wait idle.
   */
  readAhead(db: Database, wanted: readonly { readonly dataset: Dataset; readonly resource: string; readonly keyColumn: string }[], signal?: AbortSignal): void {
    const byKey = new Map(wanted.map((w) => [this.printsKey(w.dataset, w.resource, w.keyColumn), w]));
    const read = (key: string) => {
      const { dataset, resource, keyColumn } = byKey.get(key)!;
      return this.readPrints(db, dataset, resource, keyColumn);
    };
    for (const [key, prints] of inTurn(byKey.keys(), read, signal)) this.ahead.set(key, prints);
  }

  /** Waits for the prints still being read ahead (before their connection is closed). */
  async settle(): Promise<void> {
    await Promise.allSettled(this.ahead.values());
  }

  private printsKey(dataset: Dataset, resourceName: string, keyColumn: string): string {
    return JSON.stringify([dataset.name, this.resource(dataset, resourceName).table, keyColumn]);
  }

  private async readPrints(db: Database, dataset: Dataset, resourceName: string, keyColumn: string): Promise<[string, string][]> {
    const all: [string, string][] = [];
    for await (const batch of this.rowPrints(dataset, resourceName, keyColumn, db)) for (const print of batch) all.push(print);
    return all;
  }

  /**
   * Each row's key and a fingerprint of everything its rendering reads, in row order: what tells
   * a rebuild which items and pages are unchanged without rendering them. Of every column of the
   * table, so that one read serves every resource stored in it (a list of summaries changes
   * when a detail it leaves out does, which is rare, and costs a page rendered again).
   */
  async *rowPrints(dataset: Dataset, resourceName: string, keyColumn: string, db = this.db): AsyncGenerator<[string, string][]> {
    const table = dataset.tables[this.resource(dataset, resourceName).table]!;
    const columns = Object.entries(table.columns);
    const sql = `SELECT CAST(${quoteIdentifier(keyColumn)} AS VARCHAR) AS k, ${rowHash(columns)} AS h FROM ${tableSource(chooseFiles(this.snapshot, dataset, table.name))} ORDER BY ${rowOrder(table).map(quoteIdentifier).join(', ')}`;
    for await (const batch of db.stream<{ k: string; h: bigint }>(sql)) yield batch.map((row) => [row.k, row.h.toString(36)]);
  }

  /**
   * Per group of rows (equal `by` columns, and the same UTC day or month of `time`): how many,
   * and a fingerprint of them all (independent of order: rows are unique by key). Counted per
   * Parquet file and combined (counts add up, the fingerprint is an XOR), so that with a
   * `printsCache` directory a file's groups are read once for all builds: files are named by
   * their sha256, and a pull carries unchanged partitions as they were.
   */
  async groupPrints(dataset: Dataset, resourceName: string, by: readonly string[], time: string, unit: 'day' | 'month') {
    const { table, columns } = this.columnsOf(dataset, resourceName);
    const files = this.snapshot.manifest.datasets[dataset.name]!.tables[table.name]!.files.filter((file) => file.rows > 0);
    const kind = createHash('sha1').update(JSON.stringify([columns.map(([name, c]) => [name, c.sqlType]), by, time, unit])).digest('base64url').slice(0, 16);
    const cachePath = (sha256: string) => {
      this.printsUsed.add(`${sha256}-${kind}.json`);
      return join(this.printsCache!, `${sha256}-${kind}.json`);
    };
    const perFile = new Map<string, FileGroup[]>();
    if (this.printsCache) {
      for (const file of files) {
        const cached = await readFile(cachePath(file.sha256), 'utf8').then((text) => JSON.parse(text) as FileGroup[], () => undefined);
        if (cached) perFile.set(file.sha256, cached);
      }
    }
    // One file per content: two files with the same bytes hold the same groups, counted for each.
    const missing = [...new Map(files.filter((file) => !perFile.has(file.sha256)).map((file) => [file.sha256, file])).values()];
    if (missing.length) {
      const when = `strftime(${quoteIdentifier(time)}, '${unit === 'day' ? '%Y-%m-%d' : '%Y-%m'}')`;
      const groups = by.map((column) => `CAST(${quoteIdentifier(column)} AS VARCHAR) AS ${quoteIdentifier(column)}`);
      const paths = missing.map((file) => join(this.snapshot.dir, file.path));
      const rows = await this.db.rows<Record<string, string> & { file: string; unit: string; n: bigint; h: bigint }>(
        `SELECT filename AS file, ${[...groups, `${when} AS unit`].join(', ')}, count(*) AS n, bit_xor(${rowHash(columns)}) AS h ` +
          `FROM read_parquet([${paths.map(quoteString).join(', ')}], hive_partitioning = false, filename = true) GROUP BY ALL`,
      );
      const shaOf = new Map(missing.map((file, i) => [paths[i]!, file.sha256]));
      for (const file of missing) perFile.set(file.sha256, []);
      for (const row of rows) perFile.get(shaOf.get(row.file)!)!.push({ values: by.map((column) => row[column]!), unit: row.unit, n: Number(row.n), h: row.h.toString(16) });
      if (this.printsCache) {
        await mkdir(this.printsCache, { recursive: true });
        for (const file of missing) await writeFile(cachePath(file.sha256), JSON.stringify(perFile.get(file.sha256)));
      }
    }
    const merged = new Map<string, { values: string[]; unit: string; n: number; h: bigint }>();
    for (const file of files) {
      for (const group of perFile.get(file.sha256)!) {
        const key = JSON.stringify([...group.values, group.unit]);
        const found = merged.get(key);
        if (found) {
          found.n += group.n;
          found.h ^= BigInt(`0x${group.h}`);
        } else merged.set(key, { values: group.values, unit: group.unit, n: group.n, h: BigInt(`0x${group.h}`) });
      }
    }
    const order = (group: { values: string[]; unit: string }) => [...group.values, group.unit];
    return [...merged.values()]
      .sort((a, b) => compareTexts(order(a), order(b)))
      .map((group) => ({ values: group.values, unit: group.unit, rows: group.n, print: `${group.n}:${group.h.toString(36)}` }));
  }

  /** Deletes the group prints this build did not use: those of files no longer in the snapshot. */
  async prunePrintsCache(): Promise<void> {
    if (!this.printsCache) return;
    const names = await readdir(this.printsCache).catch(() => [] as string[]);
    for (const name of names) if (!this.printsUsed.has(name)) await rm(join(this.printsCache, name), { force: true });
  }

  private columnsOf(dataset: Dataset, resourceName: string) {
    const resource = this.resource(dataset, resourceName);
    const table = dataset.tables[resource.table]!;
    return { table, columns: Object.entries(table.columns).filter(([name]) => !resource.omits.includes(name)) };
  }

  private selection(dataset: Dataset, table: Table, narrow: Narrowing, bind: (value: DuckDBValue) => string) {
    const where = Object.entries(narrow.equal ?? {}).map(([column, value]) => `${quoteIdentifier(column)} = ${bind(value as string | number)}`);
    const time = table.timeColumn && quoteIdentifier(table.timeColumn);
    if (time && narrow.from !== undefined) where.push(`${time} >= make_timestamptz(CAST(${bind(BigInt(narrow.from) * 1000n)} AS BIGINT))`);
    if (time && narrow.to !== undefined) where.push(`${time} < make_timestamptz(CAST(${bind(BigInt(narrow.to) * 1000n)} AS BIGINT))`);
    return { source: tableSource(chooseFiles(this.snapshot, dataset, table.name, narrow)), where };
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
