import { Table } from 'apache-arrow';
import type { CatalogueTable } from './downloads-catalogue.ts';
import { readColumns } from './parquet-table.ts';
import type { PublishedFiles } from './published-files.ts';
import { textResult, type ArrowLike, type TextResult } from './sql-result.ts';

/**
 * Rows of a table in the order of its published files, read straight from them with no DuckDB:
 * what an unfiltered, unsorted page shows, as `SELECT * … LIMIT n OFFSET m` gives it over the
 * files in the catalogue's order. Only the row groups holding those rows are fetched, so a table
 * page opens without the 35 MB of DuckDB-WASM and reads one row group or two of any table.
 */
export async function naturalRows(table: CatalogueTable, files: PublishedFiles, offset: number, limit: number): Promise<TextResult> {
  const pieces: TextResult[] = [];
  let start = 0;
  for (const file of table.files) {
    const end = start + file.rows;
    const from = Math.max(offset, start);
    const to = Math.min(offset + limit, end);
    if (from < to) {
      const { file: bytes, metadata } = files(file);
      const vectors = await readColumns(bytes, await metadata, from - start, to - start, table.columns);
      // The vectors as a table in the columns' order: the same text DuckDB's results get (sql-result.ts).
      pieces.push(textResult(new Table(Object.fromEntries(table.columns.map((column) => [column.name, vectors.get(column.name)!]))) as unknown as ArrowLike));
    }
    start = end;
    if (start >= offset + limit) break;
  }
  const columns = table.columns.map((column) => column.name);
  const rows = pieces.flatMap((piece) => piece.rows());
  return { columns, rowCount: rows.length, rows: (from = 0, to = rows.length) => rows.slice(from, to) };
}
