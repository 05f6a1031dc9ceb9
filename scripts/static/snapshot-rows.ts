import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { listValue, type DuckDBValue } from '@duckdb/node-api';
import type { Query } from '../../datasets/vocabulary/answer.ts';
import type { Column, ColumnKind } from '../../core/table.ts';
import type { Dataset, Resource } from '../../datasets/vocabulary/dataset.ts';
import type { Table } from '../../core/table.ts';
import type { RenderContext } from '../../datasets/vocabulary/render.ts';
import { rowOrder } from '../../core/row-order.ts';
import { inTurn, quoteIdentifier, quoteString, type Database } from '../../core/db/duckdb.ts';
import { readExpression, rowDecoder } from '../../core/db/columns.ts';
import { chooseFiles, chosenFiles, tableSource, type Narrowing, type Snapshot } from '../../core/snapshot/read.ts';

/** DuckDB's hash of a row's columns (64 bits). */
const rowHash = (columns: readonly [string, Column][]) => `hash(${columns.map(([name]) => quoteIdentifier(name)).join(', ')})`;

/** The columns rows are grouped by, as text, so that groupPrints and printsBetween key a group alike. */
const groupColumns = (by: readonly string[]) => by.map((column) => `CAST(${quoteIdentifier(column)} AS VARCHAR) AS ${quoteIdentifier(column)}`);

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

/** A group's count, fingerprint (hex) and last time (epoch ms) within one Parquet file, as the prints cache keeps it. */
interface FileGroup {
  readonly values: string[];
  readonly unit: string;
  readonly n: number;
  readonly h: string;
  readonly l: number;
}

const printOf = (rows: number, hash: bigint) => `${rows}:${hash.toString(36)}`;

const compareTexts = (a: readonly string[], b: readonly string[]) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return 0;
};

/**
 * Items are fingerprinted in buckets of rows by key (DuckDB's hash of it), so that a rebuild
 * finds the few that changed without reading every row's print: a new or changed row changes its
 * bucket alone, wherever it sits in row order.
 */
export const BUCKETS = 4096;

export type PrintsWanted = { readonly kind: 'buckets'; readonly resource: string; readonly keyColumn: string } | { readonly kind: 'pages'; readonly resource: string; readonly pageRows: number };
export interface BucketPrint {
  readonly bucket: number;
  readonly rows: number;
  readonly print: string;
}
export interface PagePrint {
  readonly rows: number;
  readonly print: string;
}

export class SnapshotRows {
  private readonly printsUsed = new Set<string>();
  /** Prints being read ahead (see readAhead), by key, until asked for. */
  private readonly ahead = new Map<string, Promise<BucketPrint[] | PagePrint[]>>();
  /** Tables of row prints, by data set, table and key column (see printsTable). */
  private readonly printsTables = new Map<string, Promise<string>>();

  constructor(
    private readonly db: Database,
    readonly snapshot: Snapshot,
    /** Where the group prints of Parquet files are kept between builds; none: read every time. */
    private readonly printsCache?: string,
    /** See REPEATED_TEXTS_FROM; 0 looks in every stream. */
    private readonly repeatedTextsFrom = REPEATED_TEXTS_FROM,
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
   *
   * Rows cross from DuckDB one of two ways. By default each as one JSON text (see asJsonRows):
   * the binding decodes every string on its own, and a register row has dozens. But the long
   * series (readings, rides) are numbers and a few texts that repeat (a station, a zone): these
   * are read as ENUMs of the values the rows hold, which cross as small integers, and the rows
   * then as values, column by column (air history at city scale: 25 s → 6 s).
   */
  async *stream(dataset: Dataset, resourceName: string, narrow: Narrowing = {}, options: StreamOptions = {}): AsyncGenerator<Record<string, unknown>[]> {
    const { table, columns } = this.columnsOf(dataset, resourceName);
    const { among, window } = options;
    const values: DuckDBValue[] = [];
    const bind = (value: DuckDBValue) => `$${values.push(value)}`;
    const { source, where, rows } = this.selection(dataset, table, narrow, bind);
    if (among) where.push(`CAST(${quoteIdentifier(among.column)} AS VARCHAR) IN (SELECT unnest(${bind(listValue([...among.values]))}::VARCHAR[]))`);
    const selected = `FROM ${source}` + (where.length ? ` WHERE ${where.join(' AND ')}` : '');
    const few = rows >= this.repeatedTextsFrom ? await this.fewValues(columns, narrow, selected, [...values]) : undefined;
    const read = ([name, column]: [string, Column]) => {
      const texts = few?.get(name);
      return texts ? `CAST(${quoteIdentifier(name)} AS ENUM(${texts.map(quoteString).join(', ')})) AS ${quoteIdentifier(name)}` : readExpression(name, column);
    };
    const wanted = options.order ?? rowOrder(table);
    const sql =
      `SELECT ${columns.map(read).join(', ')} ${selected}` +
      // The IN filter is a join, which keeps no order; the few rows it passes are sorted.
      (!among && inStoredOrder(table, narrow, wanted) ? '' : ` ORDER BY ${wanted.map(quoteIdentifier).join(', ')}`) +
      // DuckDB skips the rows before the window itself: they never become JS objects.
      (window ? ` LIMIT ${bind(window.limit)} OFFSET ${bind(window.offset)}` : '');
    const decode = rowDecoder(Object.fromEntries(columns));
    for await (const batch of few ? this.db.stream(sql, values) : this.db.streamJson(sql, values)) yield batch.map(decode);
  }

  /**
   * The values of each text column among `columns` within the selection, when the others are all
   * of VALUE_KINDS and each text column holds at most FEW_VALUES values; else undefined. Those
   * `narrow` fixes are known (a series' station and sensor); the others are asked of DuckDB.
   */
  private async fewValues(columns: readonly [string, Column][], narrow: Narrowing, selected: string, values: DuckDBValue[]): Promise<ReadonlyMap<string, string[]> | undefined> {
    if (columns.some(([, column]) => column.kind !== 'varchar' && !VALUE_KINDS.has(column.kind))) return undefined;
    const texts = columns.filter(([, column]) => column.kind === 'varchar').map(([name]) => name);
    const fixed = narrow.equal ?? {};
    const few = new Map(texts.filter((name) => name in fixed).map((name) => [name, [String(fixed[name])]]));
    const asked = texts.filter((name) => !few.has(name)).map((name) => ({ name, q: quoteIdentifier(name) }));
    if (!asked.length) return few;
    // An estimate first: listing the values of a column of ids would cost a table's worth of memory.
    const [counts] = await this.db.rows<Record<string, bigint>>(`SELECT ${asked.map(({ q }, i) => `approx_count_distinct(${q}) AS c${i}`).join(', ')} ${selected}`, values);
    if (asked.some((_, i) => Number(counts![`c${i}`]) > FEW_VALUES)) return undefined;
    // In text order, so that sorting by the ENUM sorts by the text.
    const [lists] = await this.db.rows<Record<string, string[] | null>>(`SELECT ${asked.map(({ q }, i) => `list(DISTINCT ${q} ORDER BY ${q}) FILTER (WHERE ${q} IS NOT NULL) AS c${i}`).join(', ')} ${selected}`, values);
    for (const [i, { name }] of asked.entries()) few.set(name, lists![`c${i}`] ?? []);
    // An ENUM needs a value: a text column of nulls alone (or no rows) is read as JSON.
    return [...few.values()].every((list) => list.length > 0 && list.length <= FEW_VALUES) ? few : undefined;
  }

  /** What the prints of `wanted` are, read ahead (see readAhead) or now. */
  prints(dataset: Dataset, wanted: { kind: 'buckets'; resource: string; keyColumn: string }): Promise<BucketPrint[]>;
  prints(dataset: Dataset, wanted: { kind: 'pages'; resource: string; pageRows: number }): Promise<PagePrint[]>;
  prints(dataset: Dataset, wanted: PrintsWanted): Promise<BucketPrint[] | PagePrint[]> {
    const key = this.printsKey(dataset, wanted);
    const prints = this.ahead.get(key) ?? this.readPrints(this.db, dataset, wanted);
    this.ahead.delete(key);
    return prints;
  }

  /**
   * Starts reading these prints, one after another on `db` (another connection to the same
   * database), so that each is ready when `prints` asks for it: the main thread is busy with
   * other files meanwhile, and DuckDB would wait idle.
   */
  readAhead(db: Database, wanted: readonly { readonly dataset: Dataset; readonly prints: PrintsWanted }[], signal?: AbortSignal): void {
    const byKey = new Map(wanted.map((w) => [this.printsKey(w.dataset, w.prints), w]));
    const read = (key: string) => this.readPrints(db, byKey.get(key)!.dataset, byKey.get(key)!.prints);
    for (const [key, prints] of inTurn(byKey.keys(), read, signal)) this.ahead.set(key, prints);
  }

  /** Waits for the prints still being read ahead (before their connection is closed). */
  async settle(): Promise<void> {
    await Promise.allSettled(this.ahead.values());
  }

  private printsKey(dataset: Dataset, wanted: PrintsWanted): string {
    return JSON.stringify([dataset.name, this.resource(dataset, wanted.resource).table, wanted]);
  }

  private readPrints(db: Database, dataset: Dataset, wanted: PrintsWanted): Promise<BucketPrint[] | PagePrint[]> {
    return wanted.kind === 'buckets' ? this.bucketPrints(db, dataset, wanted.resource, wanted.keyColumn) : this.pagePrints(db, dataset, wanted.resource, wanted.pageRows);
  }

  /**
   * A table of every row's key (as text), bucket, place in row order and print: made once per
   * table, by whichever prints are asked first, and read by the others (one scan of the Parquet
   * files instead of three).
   */
  private printsTable(db: Database, dataset: Dataset, resourceName: string, keyColumn: string): Promise<string> {
    const table = dataset.tables[this.resource(dataset, resourceName).table]!;
    const key = JSON.stringify([dataset.name, table.name, keyColumn]);
    let made = this.printsTables.get(key);
    if (!made) {
      const name = quoteIdentifier(`odsnap_prints_${this.printsTables.size}`);
      const source = tableSource(chooseFiles(this.snapshot, dataset, table.name));
      const keyText = `CAST(${quoteIdentifier(keyColumn)} AS VARCHAR)`;
      const order = rowOrder(table).map((column, i) => [quoteIdentifier(column), `o${i}`] as const);
      // Printed below the window, so that its sort holds the prints and the order, not the rows
      // (a window over the register's wide rows took a gigabyte).
      made = db
        .run(
          `CREATE TABLE ${name} AS SELECT k, b, row_number() OVER (ORDER BY ${order.map(([, alias]) => alias).join(', ')}) - 1 AS rn, h FROM ` +
            `(SELECT ${keyText} AS k, hash(${keyText}) % ${BUCKETS} AS b, ${order.map(([column, alias]) => `${column} AS ${alias}`).join(', ')}, ${rowHash(Object.entries(table.columns))} AS h FROM ${source})`,
        )
        .then(() => name);
      this.printsTables.set(key, made);
    }
    return made;
  }

  /** The key column prints of a table are made by: its key, or the first column of its row order. */
  private keyOf(dataset: Dataset, resourceName: string): string {
    const table = dataset.tables[this.resource(dataset, resourceName).table]!;
    return table.key?.[0] ?? rowOrder(table)[0]!;
  }

  /**
   * The rows of a table in buckets by key (see BUCKETS): each bucket's rows and a fingerprint of
   * them all (an XOR of row prints: rows are unique by key), in bucket order. Empty buckets are left out.
   */
  private async bucketPrints(db: Database, dataset: Dataset, resourceName: string, keyColumn: string): Promise<BucketPrint[]> {
    const prints = await this.printsTable(db, dataset, resourceName, keyColumn);
    const rows = await db.rows<{ b: bigint; n: bigint; h: bigint }>(`SELECT b, count(*) AS n, bit_xor(h) AS h FROM ${prints} GROUP BY b ORDER BY b`);
    return rows.map((row) => ({ bucket: Number(row.b), rows: Number(row.n), print: printOf(Number(row.n), row.h) }));
  }

  /** The rows of a table in pages of `pageRows` in row order: each page's rows and a fingerprint of them and their places. */
  private async pagePrints(db: Database, dataset: Dataset, resourceName: string, pageRows: number): Promise<PagePrint[]> {
    const prints = await this.printsTable(db, dataset, resourceName, this.keyOf(dataset, resourceName));
    const rows = await db.rows<{ n: bigint; h: bigint }>(`SELECT rn // ${Math.trunc(pageRows)} AS p, count(*) AS n, bit_xor(hash(rn, h)) AS h FROM ${prints} GROUP BY p ORDER BY p`);
    return rows.map((row) => ({ rows: Number(row.n), print: printOf(Number(row.n), row.h) }));
  }

  /**
   * The key and print of each row in these buckets (see bucketPrints; all by default), in row
   * order: a print is a fingerprint of everything a row's rendering reads. Of every column of the
   * table, so that one read serves every resource stored in it (a list of summaries changes when
   * a detail it leaves out does, which is rare, and costs a file rendered again).
   */
  async rowPrints(dataset: Dataset, resourceName: string, keyColumn: string, buckets?: readonly number[]): Promise<{ key: string; print: string; bucket: number }[]> {
    const all: { key: string; print: string; bucket: number }[] = [];
    if (buckets?.length === 0) return all;
    const prints = await this.printsTable(this.db, dataset, resourceName, keyColumn);
    const sql = `SELECT k, h, b FROM ${prints}${buckets ? ` WHERE b IN (${buckets.map((bucket) => `${Math.trunc(bucket)}`).join(', ')})` : ''} ORDER BY rn`;
    for await (const batch of this.db.stream<{ k: string; h: bigint; b: bigint }>(sql)) for (const row of batch) all.push({ key: row.k, print: row.h.toString(36), bucket: Number(row.b) });
    return all;
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
    const kind = createHash('sha1').update(JSON.stringify([columns.map(([name, c]) => [name, c.sqlType]), by, time, unit, 'last'])).digest('base64url').slice(0, 16);
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
      const groups = groupColumns(by);
      const paths = missing.map((file) => join(this.snapshot.dir, file.path));
      const rows = await this.db.rows<Record<string, string> & { file: string; unit: string; n: bigint; h: bigint; l: bigint }>(
        `SELECT filename AS file, ${[...groups, `${when} AS unit`].join(', ')}, count(*) AS n, bit_xor(${rowHash(columns)}) AS h, epoch_ms(max(${quoteIdentifier(time)})) AS l ` +
          `FROM read_parquet([${paths.map(quoteString).join(', ')}], hive_partitioning = false, filename = true) GROUP BY ALL`,
      );
      const shaOf = new Map(missing.map((file, i) => [paths[i]!, file.sha256]));
      for (const file of missing) perFile.set(file.sha256, []);
      for (const row of rows) perFile.get(shaOf.get(row.file)!)!.push({ values: by.map((column) => row[column]!), unit: row.unit, n: Number(row.n), h: row.h.toString(16), l: Number(row.l) });
      if (this.printsCache) {
        await mkdir(this.printsCache, { recursive: true });
        for (const file of missing) await writeFile(cachePath(file.sha256), JSON.stringify(perFile.get(file.sha256)));
      }
    }
    const merged = new Map<string, { values: string[]; unit: string; n: number; h: bigint; l: number }>();
    for (const file of files) {
      for (const group of perFile.get(file.sha256)!) {
        const key = JSON.stringify([...group.values, group.unit]);
        const found = merged.get(key);
        if (found) {
          found.n += group.n;
          found.h ^= BigInt(`0x${group.h}`);
          found.l = Math.max(found.l, group.l);
        } else merged.set(key, { values: group.values, unit: group.unit, n: group.n, h: BigInt(`0x${group.h}`), l: group.l });
      }
    }
    const order = (group: { values: string[]; unit: string }) => [...group.values, group.unit];
    return [...merged.values()]
      .sort((a, b) => compareTexts(order(a), order(b)))
      .map((group) => ({ values: group.values, unit: group.unit, rows: group.n, print: printOf(group.n, group.h), last: group.l }));
  }

  /**
   * Per group of rows (equal `by` columns) with `time` from `from` up to (not including) `to`
   * (epoch ms): the fingerprint groupPrints gives, of those rows alone. Tells whether the rows a
   * file was made from are still the first of its group's rows.
   */
  async printsBetween(dataset: Dataset, resourceName: string, by: readonly string[], from: number, to: number): Promise<Map<string, string>> {
    const { table, columns } = this.columnsOf(dataset, resourceName);
    const values: DuckDBValue[] = [];
    const { source, where } = this.selection(dataset, table, { from, to }, (value) => `$${values.push(value)}`);
    const groups = groupColumns(by);
    const rows = await this.db.rows<Record<string, string> & { n: bigint; h: bigint }>(
      `SELECT ${[...groups, `count(*) AS n, bit_xor(${rowHash(columns)}) AS h`].join(', ')} FROM ${source} WHERE ${where.join(' AND ')} GROUP BY ALL`,
      values,
    );
    return new Map(rows.map((row) => [JSON.stringify(by.map((column) => row[column]!)), printOf(Number(row.n), row.h)]));
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
    const files = chosenFiles(this.snapshot, dataset, table.name, narrow);
    // What the files hold: at least the rows selected.
    const rows = files.reduce((sum, file) => sum + file.rows, 0);
    return { source: tableSource(files.map((file) => join(this.snapshot.dir, file.path))), where, rows };
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
