import { createHash } from 'node:crypto';
import { appendFileSync, createReadStream } from 'node:fs';
import { copyFile, link, mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { compareKeys, keyOf, rowOrder, type SortKey } from '../row-order.ts';
import type { Table } from '../table.ts';
import type { Column, Derivation } from '../table.ts';
import { readExpression, rowDecoder, stagingType, writeExpression } from '../db/columns.ts';
import { quoteIdentifier, quoteString, type Database } from '../db/duckdb.ts';
import type { FileManifest, TableManifest } from './manifest.ts';
import { joinStagedRows } from './staged-join.ts';
import { sortStagedRows } from './staged-rows.ts';

/**
 * Writes one table of a snapshot. Rows are routed to their partition and staged as JSON lines;
 * `finish` puts each partition in order and turns it into one Parquet file with a single COPY,
 * which DuckDB writes byte-for-byte the same on every run (its multi-threaded PARTITION_BY does
 * not), streaming, in the order of the lines.
 */

const FLUSH_BYTES = 64 * 1024;
/**
 * Bytes of staged rows per Parquet row group. Small enough that a lookup of one wide row (a
 * property with its details) decompresses little, and that DuckDB holds little per writing thread;
 * narrow rows still get tens of thousands of rows per group. DuckDB's minimum is 2048 rows.
 */
const ROW_GROUP_BYTES = 4 * 1024 * 1024;
const MAX_ROW_GROUP_ROWS = 122_880;
const NULL_PARTITION = '__HIVE_DEFAULT_PARTITION__';

interface Partition {
  readonly values: Record<string, string>;
  /** e.g. `counter=abc/year=2024`, empty for an unpartitioned table. */
  readonly path: string;
  readonly staged: string;
  buffer: string[];
  bufferedBytes: number;
  stagedBytes: number;
  rows: number;
  min: number | string | null;
  max: number | string | null;
  /** Rows mostly arrive in order (time series); only a partition that did not is re-sorted. */
  lastKey: SortKey | null;
  inOrder: boolean;
}

export class TableWriter {
  private readonly partitions = new Map<string, Partition>();
  /** Files of an earlier snapshot taken as they are, with where they are now. */
  private readonly carried: { readonly file: FileManifest; readonly from: string }[] = [];
  rows = 0;
  /**
   * Rows dropped because a row of the same key was written before them: a keyed table holds each
   * key once, the first row written (a pull writes what it fetched before what it carries).
   */
  repeated = 0;
  private readonly order: readonly string[];
  /** Columns worked out from other tables when the table is finished (see `Derivation`). */
  private readonly derived: readonly [string, Column & { derive: Derivation }][];
  /** The UTC day of the last instant turned into a partition, and its ISO date: most rows share it. */
  private isoDay = { day: NaN, iso: '' };

  /** `tableDir` is relative to the snapshot, e.g. `bike-counter/readings`. */
  constructor(
    readonly table: Table,
    readonly tableDir: string,
    private readonly stagingDir: string,
  ) {
    this.order = rowOrder(table);
    this.derived = Object.entries(table.columns).filter((entry): entry is [string, Column & { derive: Derivation }] => entry[1].derive !== undefined);
    if (this.derived.length && !table.key) throw new Error(`${tableDir}: a table with derived columns needs a key to match their values to rows`);
    // Partitions and time ranges are worked out as rows arrive, before derived values exist.
    const early = [...(table.partitionBy ?? []).map((p) => p.column), ...(table.timeColumn ? [table.timeColumn] : [])];
    const misused = this.derived.find(([name]) => early.includes(name));
    if (misused) throw new Error(`${tableDir}: the derived column ${misused[0]} cannot partition the table or be its time column`);
  }

  /** Whether the table has derived columns: it is then finished after the data set's other tables. */
  get derives(): boolean {
    return this.derived.length > 0;
  }

  write(row: Record<string, unknown>): void {
    const values = this.partitionOf(row);
    const lookup = values.join('\u0000');
    let partition = this.partitions.get(lookup);
    if (!partition) {
      partition = {
        values: Object.fromEntries((this.table.partitionBy ?? []).map((p, i) => [p.name, values[i]!])),
        path: (this.table.partitionBy ?? []).map((p, i) => `${p.name}=${encodeURIComponent(values[i]!)}`).join('/'),
        staged: join(this.stagingDir, `${this.partitions.size}.jsonl`),
        buffer: [],
        bufferedBytes: 0,
        stagedBytes: 0,
        rows: 0,
        min: null,
        max: null,
        lastKey: null,
        inOrder: true,
      };
      this.partitions.set(lookup, partition);
    }
    const sortKey = keyOf(row, this.order);
    const order = partition.lastKey ? compareKeys(partition.lastKey, sortKey) : -1;
    // A row whose key was just written is the same row again (see `repeated`).
    if (order === 0 && this.table.key) {
      this.repeated++;
      return;
    }
    if (order > 0) partition.inOrder = false;
    partition.lastKey = sortKey;
    const line = JSON.stringify(row);
    partition.buffer.push(line);
    partition.bufferedBytes += line.length;
    partition.stagedBytes += line.length + 1;
    partition.rows++;
    this.rows++;
    const time = this.table.timeColumn ? (row[this.table.timeColumn] as number | string | null) : null;
    if (time !== null) {
      if (partition.min === null || time < partition.min) partition.min = time;
      if (partition.max === null || time > partition.max) partition.max = time;
    }
    if (partition.bufferedBytes >= FLUSH_BYTES) this.flush(partition);
  }

  /** Whether rows were written into the partition with these values (a file's `partition`). */
  hasPartition(values: Readonly<Record<string, string>>): boolean {
    return this.partitions.has((this.table.partitionBy ?? []).map((p) => values[p.name]).join('\u0000'));
  }

  /**
   * Takes a file of an earlier snapshot into this one unchanged (a hard link, not a copy), for a
   * partition that gets no rows here. Its derived columns stay as they were: files are carried
   * when their data set was not pulled, so the tables they are derived from are unchanged too.
   */
  carry(file: FileManifest, from: string): void {
    if (this.hasPartition(file.partition)) throw new Error(`${this.tableDir}: ${file.path} is carried into a partition that also has new rows`);
    this.carried.push({ file, from });
    this.rows += file.rows;
  }

  private partitionOf(row: Record<string, unknown>): string[] {
    return (this.table.partitionBy ?? []).map((p) => {
      const value = row[p.column];
      if (value === null || value === undefined) return NULL_PARTITION;
      if (!p.part) return String(value);
      const iso = typeof value === 'number' ? this.isoDate(value) : String(value);
      return p.part === 'year' ? iso.slice(0, 4) : p.part === 'month' ? iso.slice(5, 7) : iso.slice(8, 10);
    });
  }

  private isoDate(ms: number): string {
    const day = Math.floor(ms / 86_400_000);
    if (day !== this.isoDay.day) this.isoDay = { day, iso: new Date(day * 86_400_000).toISOString() };
    return this.isoDay.iso;
  }

  private flush(partition: Partition): void {
    if (!partition.buffer.length) return;
    const text = partition.buffer.join('\n') + '\n';
    partition.buffer = [];
    partition.bufferedBytes = 0;
    // Synchronous on purpose: generators write in tight loops, and memory must stay bounded.
    appendFileSync(partition.staged, text);
  }

  /**
   * Writes every partition's Parquet file under `snapshotDir` and returns the table's manifest
   * entry. Derived columns read the views of the tables they come from, which must exist in `db`.
   */
  async finish(db: Database, snapshotDir: string): Promise<TableManifest> {
    for (const partition of this.partitions.values()) this.flush(partition);
    if (this.derived.length && this.partitions.size) await this.derive(db);
    const columns = Object.entries(this.table.columns);
    const staging = `{${columns.map(([name, c]) => `${quoteString(name)}: ${quoteString(stagingType(c))}`).join(', ')}}`;
    const select = columns.map(([name, c]) => writeExpression(name, c)).join(', ');
    const files: FileManifest[] = [];
    const partitions: (Partition | undefined)[] = [...this.partitions.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
    // A table without rows still gets one (empty) file, so every reader learns its schema.
    if (partitions.length === 0 && this.carried.length === 0) partitions.push(undefined);
    for (const { file, from } of this.carried) {
      const target = join(snapshotDir, file.path);
      await mkdir(join(target, '..'), { recursive: true });
      await link(from, target).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'EXDEV' || error.code === 'EPERM') return copyFile(from, target);
        throw error;
      });
      files.push(file);
    }
    for (const partition of partitions) {
      const path = [this.tableDir, partition?.path, 'part-0.parquet'].filter(Boolean).join('/');
      const target = join(snapshotDir, path);
      await mkdir(join(target, '..'), { recursive: true });
      if (partition && !partition.inOrder) {
        const dropped = await sortStagedRows(partition.staged, this.order, { distinct: Boolean(this.table.key) });
        partition.rows -= dropped;
        this.rows -= dropped;
        this.repeated += dropped;
      }
      const from = partition
        ? `read_json(${quoteString(partition.staged)}, format = 'newline_delimited', columns = ${staging})`
        : `(SELECT ${columns.map(([name, c]) => `CAST(NULL AS ${stagingType(c)}) AS ${quoteIdentifier(name)}`).join(', ')} LIMIT 0)`;
      // Wide rows (JSON details) get smaller row groups, so memory stays bounded whatever the table.
      const rowGroup = partition
        ? Math.min(MAX_ROW_GROUP_ROWS, Math.max(2048, Math.floor((ROW_GROUP_BYTES * partition.rows) / partition.stagedBytes)))
        : MAX_ROW_GROUP_ROWS;
      await db.run(`COPY (SELECT ${select} FROM ${from}) TO ${quoteString(target)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${rowGroup})`);
      if (partition) await rm(partition.staged);
      files.push({
        path,
        rows: partition?.rows ?? 0,
        bytes: (await stat(target)).size,
        sha256: await sha256Of(target),
        partition: partition?.values ?? {},
        min: timeText(partition?.min ?? null),
        max: timeText(partition?.max ?? null),
      });
    }
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return {
      rows: this.rows,
      columns: columns.map(([name, c]) => ({ name, type: c.sqlType, nullable: c.nullable })),
      key: this.table.key ? [...this.table.key] : null,
      partitionBy: (this.table.partitionBy ?? []).map((p) => ({ ...p })),
      sortBy: [...this.table.sortBy],
      timeColumn: this.table.timeColumn ?? null,
      files,
    };
  }

  /**
   * Fills the derived columns of every staged row from their queries. Each query's answers are
   * written to a file and put in the key's order, as the staged rows are, and the two read side by
   * side: held in a map, a register's answers took more memory than the rest of the snapshot's
   * writing, and grew with it.
   */
  private async derive(db: Database): Promise<void> {
    const key = this.table.key!;
    for (const partition of this.partitions.values()) await sortStagedRows(partition.staged, key);
    for (const [name, column] of this.derived) {
      const answer = { ...Object.fromEntries(key.map((k) => [k, this.table.columns[k]!])), value: column };
      const decode = rowDecoder(answer);
      const select = Object.entries(answer)
        .map(([k, c]) => readExpression(k, c))
        .join(', ');
      const values = join(this.stagingDir, `derived-${name}.jsonl`);
      for await (const rows of db.stream(`SELECT ${select} FROM (${column.derive.sql})`))
        appendFileSync(values, rows.map((row) => `${JSON.stringify(decode(row))}\n`).join(''));
      appendFileSync(values, ''); // there even when the query has no answer
      await sortStagedRows(values, key);
      for (const partition of this.partitions.values())
        await joinStagedRows(partition.staged, values, key, (row, found) => void (row[name] = found?.value ?? null));
      await rm(values);
    }
    // Rows were put in order without their derived values.
    for (const partition of this.partitions.values()) partition.inOrder = false;
  }
}

const timeText = (value: number | string | null) => (typeof value === 'number' ? new Date(value).toISOString() : value);

export async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
