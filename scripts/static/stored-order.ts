import { join } from 'node:path';
import { quoteIdentifier, quoteString, type Database } from '../../core/db/duckdb.ts';
import { rowOrder } from '../../core/row-order.ts';
import { chosenFiles, type Narrowing, type Snapshot } from '../../core/snapshot/read.ts';
import type { FileManifest } from '../../core/snapshot/manifest.ts';
import type { Table } from '../../core/table.ts';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';

/**
 * Whether a table's chosen files, read in manifest order, already give rows in an order asked for,
 * so that DuckDB need not sort them: a sort holds the rows (a register's, at region scale, half a
 * gigabyte), a read in stored order streams. Each file holds its rows in row order (the snapshot's
 * writer sorts them) and DuckDB keeps the order of files and rows. So it is enough that, leaving
 * out the columns `narrow` fixes, the order asked is the stored one, and that the files follow
 * one another: known from the partitions when each is fixed, or a year or month of the order's
 * first column; otherwise asked of the files' first and last rows (a register partitioned by year
 * but listed in the upstream's order, which in practice is by date too).
 */
export class StoredOrder {
  /** Answers asked of the files, by their paths and the order. */
  private readonly asked = new Map<string, Promise<boolean>>();

  constructor(private readonly snapshot: Snapshot) {}

  /** Whether the order holds; asked of the files, if need be, on `db`. */
  async holds(db: Database, dataset: Dataset, table: Table, narrow: Narrowing, order: readonly string[]): Promise<boolean> {
    const fixed = new Set(Object.keys(narrow.equal ?? {}));
    const stored = rowOrder(table).filter((column) => !fixed.has(column));
    const wanted = order.filter((column) => !fixed.has(column));
    if (wanted.length !== stored.length || wanted.some((column, i) => column !== stored[i])) return false;
    if ((table.partitionBy ?? []).every((partition) => (partition.part ? partition.column === stored[0] : fixed.has(partition.column)))) return true;
    const files = chosenFiles(this.snapshot, dataset, table.name, narrow).filter((file) => file.rows > 0);
    if (files.length < 2) return true;
    if (ROW_NUMBER in table.columns) return false;
    const key = JSON.stringify([files.map((file) => file.path), stored]);
    let answer = this.asked.get(key);
    if (!answer) {
      answer = followOneAnother(
        db,
        files.map((file) => ({ path: join(this.snapshot.dir, file.path), rows: file.rows })),
        stored,
      );
      this.asked.set(key, answer);
    }
    return answer;
  }
}

/**
 * Whether each file's last row comes before the next file's first, as DuckDB orders them: the
 * files' first and last rows, sorted by `order` (ties by file and place), are in file order.
 */
export async function followOneAnother(db: Database, files: readonly { path: string; rows: number }[], order: readonly string[]): Promise<boolean> {
  const columns = order.map(quoteIdentifier).join(', ');
  const ends = files.map(
    (file, i) =>
      `SELECT ${i} AS __file, ${ROW_NUMBER} AS __row, ${columns} FROM read_parquet(${quoteString(file.path)}, hive_partitioning = false, ${ROW_NUMBER} = true) ` +
      `WHERE ${ROW_NUMBER} IN (0, ${file.rows - 1})`,
  );
  const sorted = await db.rows<{ __file: number; __row: bigint }>(`SELECT __file, __row FROM (${ends.join(' UNION ALL ')}) ORDER BY ${columns}, __file, __row`);
  const expected = files.flatMap((file, i) => (file.rows > 1 ? [`${i}:0`, `${i}:${file.rows - 1}`] : [`${i}:0`]));
  return sorted.length === expected.length && sorted.every((row, i) => `${row.__file}:${row.__row}` === expected[i]);
}

/**
 * SQL: `select` over the rows of files that hold them in order one after another, with `rn`, a
 * row's place in that order: its row number in its file after the rows of the files before.
 */
export function withPlaces(snapshot: Snapshot, files: readonly FileManifest[], select: string): string {
  let before = 0;
  return files
    .map((file) => {
      const part = `SELECT ${select}, ${before} + ${ROW_NUMBER} AS rn FROM read_parquet(${quoteString(join(snapshot.dir, file.path))}, hive_partitioning = false, ${ROW_NUMBER} = true)`;
      before += file.rows;
      return part;
    })
    .join(' UNION ALL ');
}

/** The column DuckDB adds to a Parquet file's rows with their places in the file. */
export const ROW_NUMBER = 'file_row_number';
