import { createHash } from 'node:crypto';
import { appendFileSync, createReadStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Table } from '../../datasets/core/table.ts';
import { stagingType, totalOrder, writeExpression } from '../db/columns.ts';
import { quoteIdentifier, quoteString, type Database } from '../db/duckdb.ts';
import type { FileManifest, TableManifest } from './manifest.ts';

/**
 * Writes one table of a snapshot. Rows are routed to their partition and staged as JSON lines;
 * `finish` turns each partition into one Parquet file with a single ordered COPY, which DuckDB
 * writes byte-for-byte the same on every run (its multi-threaded PARTITION_BY does not).
 */

const FLUSH_BYTES = 256 * 1024;
const NULL_PARTITION = '__HIVE_DEFAULT_PARTITION__';

interface Partition {
  readonly values: Record<string, string>;
  readonly staged: string;
  buffer: string[];
  bufferedBytes: number;
  rows: number;
  min: number | string | null;
  max: number | string | null;
}

export class TableWriter {
  private readonly partitions = new Map<string, Partition>();
  rows = 0;

  /** `tableDir` is relative to the snapshot, e.g. `bike-counter/readings`. */
  constructor(
    readonly table: Table,
    readonly tableDir: string,
    private readonly stagingDir: string,
  ) {}

  write(row: Record<string, unknown>): void {
    const values = this.partitionOf(row);
    const key = Object.entries(values).map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('/');
    let partition = this.partitions.get(key);
    if (!partition) {
      partition = { values, staged: join(this.stagingDir, `${this.partitions.size}.jsonl`), buffer: [], bufferedBytes: 0, rows: 0, min: null, max: null };
      this.partitions.set(key, partition);
    }
    const line = JSON.stringify(row);
    partition.buffer.push(line);
    partition.bufferedBytes += line.length;
    partition.rows++;
    this.rows++;
    const time = this.table.timeColumn ? (row[this.table.timeColumn] as number | string | null) : null;
    if (time !== null) {
      if (partition.min === null || time < partition.min) partition.min = time;
      if (partition.max === null || time > partition.max) partition.max = time;
    }
    if (partition.bufferedBytes >= FLUSH_BYTES) this.flush(partition);
  }

  private partitionOf(row: Record<string, unknown>): Record<string, string> {
    const values: Record<string, string> = {};
    for (const p of this.table.partitionBy ?? []) {
      const value = row[p.column];
      if (value === null || value === undefined) values[p.name] = NULL_PARTITION;
      else if (!p.part) values[p.name] = String(value);
      else {
        const iso = typeof value === 'number' ? new Date(value).toISOString() : String(value);
        values[p.name] = p.part === 'year' ? iso.slice(0, 4) : iso.slice(5, 7);
      }
    }
    return values;
  }

  private flush(partition: Partition): void {
    if (!partition.buffer.length) return;
    const text = partition.buffer.join('\n') + '\n';
    partition.buffer = [];
    partition.bufferedBytes = 0;
    // Synchronous on purpose: generators write in tight loops, and memory must stay bounded.
    appendFileSync(partition.staged, text);
  }

  /** Writes every partition's Parquet file under `snapshotDir` and returns the table's manifest entry. */
  async finish(db: Database, snapshotDir: string): Promise<TableManifest> {
    for (const partition of this.partitions.values()) this.flush(partition);
    const columns = Object.entries(this.table.columns);
    const staging = `{${columns.map(([name, c]) => `${quoteString(name)}: ${quoteString(stagingType(c))}`).join(', ')}}`;
    const select = columns.map(([name, c]) => writeExpression(name, c)).join(', ');
    const order = totalOrder(this.table.columns, this.table.sortBy);
    const files: FileManifest[] = [];
    const keys = [...this.partitions.keys()].sort();
    // A table without rows still gets one (empty) file, so every reader learns its schema.
    if (keys.length === 0) keys.push('');
    for (const key of keys) {
      const partition = this.partitions.get(key);
      const path = [this.tableDir, key, 'part-0.parquet'].filter(Boolean).join('/');
      const target = join(snapshotDir, path);
      await mkdir(join(target, '..'), { recursive: true });
      const from = partition
        ? `read_json(${quoteString(partition.staged)}, format = 'newline_delimited', columns = ${staging})`
        : `(SELECT ${columns.map(([name, c]) => `CAST(NULL AS ${stagingType(c)}) AS ${quoteIdentifier(name)}`).join(', ')} LIMIT 0)`;
      await db.run(`COPY (SELECT ${select} FROM ${from} ORDER BY ${order}) TO ${quoteString(target)} (FORMAT parquet, COMPRESSION zstd)`);
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
}

const timeText = (value: number | string | null) => (typeof value === 'number' ? new Date(value).toISOString() : value);

export async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
