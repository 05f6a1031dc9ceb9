import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBValue } from '@duckdb/node-api';
import { inTurn, quoteIdentifier, quoteString, type Database } from '../../core/db/duckdb.ts';
import { rowOrder } from '../../core/row-order.ts';
import { chosenFiles, tableSource, type Snapshot } from '../../core/snapshot/read.ts';
import type { BucketPrint, GroupPrint, GroupRange, PagePrint, PrintsWanted, RowPrints, TreePrints } from '../../datasets/answers/static-files.ts';
import { byTimeAlone, rangeUnitsSql } from '../../datasets/answers/time-range.ts';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import { columnsOf, resourceIn, selection } from './snapshot-rows.ts';
import { BUCKETS, rowHash, rowPrintSql } from './row-prints.ts';
import { ROW_NUMBER, StoredOrder, withPlaces } from './stored-order.ts';
import { writeWhole } from './whole-files.ts';

/** The columns rows are grouped by, as text, so that groupPrints and printsBetween key a group alike. */
const groupColumns = (by: readonly string[]) => by.map((column) => `CAST(${quoteIdentifier(column)} AS VARCHAR) AS ${quoteIdentifier(column)}`);

/** A group's count, fingerprint (hex), last and first time (epoch ms) within one Parquet file, as the prints cache keeps it. */
interface FileGroup {
  readonly values: string[];
  readonly unit: string;
  readonly n: number;
  readonly h: string;
  readonly l: number;
  readonly f: number;
}

const printOf = (rows: number, hash: bigint) => `${rows}:${hash.toString(36)}`;

const compareTexts = (a: readonly string[], b: readonly string[]) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return 0;
};

/**
 * Fingerprints of a snapshot's rows, by which a rebuild tells the files whose rows changed from
 * those it can carry over unrendered: of items in buckets of keys, of pages in list order, of
 * groups of a series by day or month (counted per Parquet file and kept between builds).
 */
export class SnapshotPrints implements TreePrints {
  readonly buckets = BUCKETS;
  private readonly printsUsed = new Set<string>();
  /** Prints being read ahead (see readAhead), by key, until asked for. */
  private readonly ahead = new Map<string, Promise<BucketPrint[] | PagePrint[]>>();
  /** Tables of row prints, by data set, table and key column (see printsTable). */
  private readonly printsTables = new Map<string, Promise<string>>();
  private readonly storedOrder: StoredOrder;

  constructor(
    private readonly db: Database,
    readonly snapshot: Snapshot,
    /** Where the group prints of Parquet files are kept between builds; none: read every time. */
    private readonly printsCache?: string,
  ) {
    this.storedOrder = new StoredOrder(snapshot);
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
    return JSON.stringify([dataset.name, resourceIn(dataset, wanted.resource).table, wanted]);
  }

  private readPrints(db: Database, dataset: Dataset, wanted: PrintsWanted): Promise<BucketPrint[] | PagePrint[]> {
    return wanted.kind === 'buckets'
      ? this.bucketPrints(db, dataset, wanted.resource, wanted.keyColumn)
      : this.pagePrints(db, dataset, wanted.resource, wanted.pageRows);
  }

  /**
   * A table of every row's key (as text), bucket, place in row order and print: made once per
   * table, by whichever prints are asked first, and read by the others (one scan of the Parquet
   * files instead of three).
   */
  private printsTable(db: Database, dataset: Dataset, resourceName: string, keyColumn: string): Promise<string> {
    const table = dataset.tables[resourceIn(dataset, resourceName).table]!;
    const key = JSON.stringify([dataset.name, table.name, keyColumn]);
    let made = this.printsTables.get(key);
    if (!made) {
      const name = quoteIdentifier(`odsnap_prints_${this.printsTables.size}`);
      const files = chosenFiles(this.snapshot, dataset, table.name);
      const printed = rowPrintSql(table, keyColumn);
      const order = rowOrder(table).map((column, i) => [quoteIdentifier(column), `o${i}`] as const);
      made = this.storedOrder.holds(db, dataset, table, {}, rowOrder(table)).then(async (stored) => {
        // Files read in their order are in the order the pages are written in: no sort. Else
        // printed below the window, so that its sort holds the prints and the order, not the
        // rows (a window over the register's wide rows took a gigabyte).
        const rows =
          stored && !(ROW_NUMBER in table.columns)
            ? withPlaces(this.snapshot, files, printed)
            : `SELECT k, b, row_number() OVER (ORDER BY ${order.map(([, alias]) => alias).join(', ')}) - 1 AS rn, h FROM ` +
              `(SELECT ${printed}, ${order.map(([column, alias]) => `${column} AS ${alias}`).join(', ')} FROM ${tableSource(files.map((file) => join(this.snapshot.dir, file.path)))})`;
        await db.run(`CREATE TABLE ${name} AS ${rows}`);
        return name;
      });
      this.printsTables.set(key, made);
    }
    return made;
  }

  /** The key column prints of a table are made by: its key, or the first column of its row order. */
  private keyOf(dataset: Dataset, resourceName: string): string {
    const table = dataset.tables[resourceIn(dataset, resourceName).table]!;
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
    const rows = await db.rows<{ n: bigint; h: bigint }>(
      `SELECT rn // ${Math.trunc(pageRows)} AS p, count(*) AS n, bit_xor(hash(rn, h)) AS h FROM ${prints} GROUP BY p ORDER BY p`,
    );
    return rows.map((row) => ({ rows: Number(row.n), print: printOf(Number(row.n), row.h) }));
  }

  /**
   * The key and print of each row in these buckets (see bucketPrints; all by default), in row
   * order: a print is a fingerprint of everything a row's rendering reads. Of every column of the
   * table, so that one read serves every resource stored in it (a list of summaries changes when
   * a detail it leaves out does, which is rare, and costs a file rendered again).
   */
  async rowPrintsOf(_dataset: Dataset, _resourceName: string, keyColumn: string): Promise<RowPrints> {
    return { keyColumn };
  }

  async rowPrints(
    dataset: Dataset,
    resourceName: string,
    keyColumn: string,
    buckets?: readonly number[],
  ): Promise<{ key: string; print: string; bucket: number }[]> {
    const all: { key: string; print: string; bucket: number }[] = [];
    if (buckets?.length === 0) return all;
    const prints = await this.printsTable(this.db, dataset, resourceName, keyColumn);
    const sql = `SELECT k, h, b FROM ${prints}${buckets ? ` WHERE b IN (${buckets.map((bucket) => `${Math.trunc(bucket)}`).join(', ')})` : ''} ORDER BY rn`;
    for await (const batch of this.db.stream<{ k: string; h: bigint; b: bigint }>(sql))
      for (const row of batch) all.push({ key: row.k, print: row.h.toString(36), bucket: Number(row.b) });
    return all;
  }

  /**
   * Per group of rows (equal `by` columns, and the same UTC day or month of `time`): how many,
   * and a fingerprint of them all (independent of order: rows are unique by key). Counted per
   * Parquet file and combined (counts add up, the fingerprint is an XOR), so that with a
   * `printsCache` directory a file's groups are read once for all builds: files are named by
   * their sha256, and a pull carries unchanged partitions as they were. With a `range` whose rule
   * is not the sample city's, a row is in the group of each day or month whose from..to range
   * returns it (a ride across midnight, by overlap, in both days'), so that a changed row changes
   * the print of every file it is in.
   */
  async groupPrints(
    dataset: Dataset,
    resourceName: string,
    by: readonly string[],
    time: string,
    unit: 'day' | 'month',
    range?: GroupRange,
  ): Promise<GroupPrint[]> {
    const { table, columns } = columnsOf(dataset, resourceName);
    const files = this.snapshot.manifest.datasets[dataset.name]!.tables[table.name]!.files.filter((file) => file.rows > 0);
    const ruled = range && !byTimeAlone(range.rule) ? range : undefined;
    const kind = createHash('sha1')
      .update(JSON.stringify([columns.map(([name, c]) => [name, c.sqlType]), by, time, unit, ruled ?? null, 'last', 'first']))
      .digest('base64url')
      .slice(0, 16);
    const cachePath = (sha256: string) => {
      this.printsUsed.add(`${sha256}-${kind}.json`);
      return join(this.printsCache!, `${sha256}-${kind}.json`);
    };
    const perFile = new Map<string, FileGroup[]>();
    if (this.printsCache) {
      for (const file of files) {
        const cached = await readFile(cachePath(file.sha256), 'utf8').then(
          (text) => JSON.parse(text) as FileGroup[],
          () => undefined,
        );
        if (cached) perFile.set(file.sha256, cached);
      }
    }
    // One file per content: two files with the same bytes hold the same groups, counted for each.
    const missing = [...new Map(files.filter((file) => !perFile.has(file.sha256)).map((file) => [file.sha256, file])).values()];
    if (missing.length) {
      const format = `'${unit === 'day' ? '%Y-%m-%d' : '%Y-%m'}'`;
      const groups = groupColumns(by);
      const paths = missing.map((file) => join(this.snapshot.dir, file.path));
      const parquet = `read_parquet([${paths.map(quoteString).join(', ')}], hive_partitioning = false, filename = true)`;
      // By the rule, a row is in each of its candidate units that returns it.
      const units = ruled && rangeUnitsSql({ time, until: ruled.until }, ruled.rule, unit, 'odsnap_unit');
      const [when, from] = units
        ? [`strftime(odsnap_unit, ${format})`, `(SELECT *, unnest(${units.candidates}) AS odsnap_unit FROM ${parquet}) WHERE ${units.condition}`]
        : [`strftime(${quoteIdentifier(time)}, ${format})`, parquet];
      const rows = await this.db.rows<Record<string, string> & { file: string; unit: string; n: bigint; h: bigint; l: bigint; f: bigint }>(
        `SELECT filename AS file, ${[...groups, `${when} AS unit`].join(', ')}, count(*) AS n, bit_xor(${rowHash(columns.map(([name]) => name))}) AS h, ` +
          `epoch_ms(max(${quoteIdentifier(time)})) AS l, epoch_ms(min(${quoteIdentifier(time)})) AS f FROM ${from} GROUP BY ALL`,
      );
      const shaOf = new Map(missing.map((file, i) => [paths[i]!, file.sha256]));
      for (const file of missing) perFile.set(file.sha256, []);
      for (const row of rows)
        perFile
          .get(shaOf.get(row.file)!)!
          .push({ values: by.map((column) => row[column]!), unit: row.unit, n: Number(row.n), h: row.h.toString(16), l: Number(row.l), f: Number(row.f) });
      if (this.printsCache) {
        await mkdir(this.printsCache, { recursive: true });
        for (const file of missing) await writeWhole(cachePath(file.sha256), JSON.stringify(perFile.get(file.sha256)));
      }
    }
    const merged = new Map<string, { values: string[]; unit: string; n: number; h: bigint; l: number; f: number }>();
    for (const file of files) {
      for (const group of perFile.get(file.sha256)!) {
        const key = JSON.stringify([...group.values, group.unit]);
        const found = merged.get(key);
        if (found) {
          found.n += group.n;
          found.h ^= BigInt(`0x${group.h}`);
          found.l = Math.max(found.l, group.l);
          found.f = Math.min(found.f, group.f);
        } else merged.set(key, { values: group.values, unit: group.unit, n: group.n, h: BigInt(`0x${group.h}`), l: group.l, f: group.f });
      }
    }
    const order = (group: { values: string[]; unit: string }) => [...group.values, group.unit];
    return [...merged.values()]
      .sort((a, b) => compareTexts(order(a), order(b)))
      .map((group) => ({ values: group.values, unit: group.unit, rows: group.n, print: printOf(group.n, group.h), last: group.l, first: group.f }));
  }

  /**
   * Per group of rows (equal `by` columns) with `time` from `from` up to (not including) `to`
   * (epoch ms): the fingerprint groupPrints gives, of those rows alone. Tells whether the rows a
   * file was made from are still the first of its group's rows.
   */
  async printsBetween(dataset: Dataset, resourceName: string, by: readonly string[], from: number, to: number): Promise<Map<string, string>> {
    const { table, columns } = columnsOf(dataset, resourceName);
    const values: DuckDBValue[] = [];
    const { source, where } = selection(this.snapshot, dataset, table, { from, to }, (value) => `$${values.push(value)}`);
    const groups = groupColumns(by);
    const rows = await this.db.rows<Record<string, string> & { n: bigint; h: bigint }>(
      `SELECT ${[...groups, `count(*) AS n, bit_xor(${rowHash(columns.map(([name]) => name))}) AS h`].join(', ')} FROM ${source} WHERE ${where.join(' AND ')} GROUP BY ALL`,
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
}
