import type { CatalogueTable } from './downloads-catalogue.ts';
import { readText, type CatalogueColumn } from './parquet-table.ts';
import type { PublishedFiles } from './published-files.ts';
import { textRows, type TextResult } from './sql-result.ts';

/**
 * Rows of a table in the order of its published files, read straight from them with no DuckDB:
 * what an unfiltered, unsorted page shows, as `SELECT * … LIMIT n OFFSET m` gives it over the
 * files in the catalogue's order. Only the row groups holding those rows are fetched, so a table
 * page opens without the 35 MB of DuckDB-WASM and reads one row group or two of any table;
 * `columns` (the table's by default) are the only ones read.
 */
export async function naturalRows(
  table: CatalogueTable,
  files: PublishedFiles,
  offset: number,
  limit: number,
  columns: readonly CatalogueColumn[] = table.columns,
): Promise<TextResult> {
  const pieces: TextResult[] = [];
  let start = 0;
  for (const file of table.files) {
    const end = start + file.rows;
    const from = Math.max(offset, start);
    const to = Math.min(offset + limit, end);
    if (from < to) {
      const { file: bytes, metadata } = files(file);
      pieces.push(await readText(bytes, await metadata, from - start, to - start, columns));
    }
    start = end;
    if (start >= offset + limit) break;
  }
  return textRows(
    columns.map((column) => column.name),
    pieces.flatMap((piece) => piece.rows()),
  );
}

/** The same rows with more columns beside them (`right`'s after `left`'s). */
export function sideBySide(left: TextResult, right: TextResult): TextResult {
  const rightRows = right.rows();
  return textRows(
    [...left.columns, ...right.columns],
    left.rows().map((row, i) => [...row, ...rightRows[i]!]),
  );
}
