import {
  Bool,
  DateDay,
  Field,
  Float64,
  Int32,
  Int64,
  List,
  Table,
  TimestampMillisecond,
  Utf8,
  tableToIPC,
  vectorFromArray,
  type DataType,
  type Vector,
} from 'apache-arrow';
import type { AsyncBuffer, FileMetaData } from 'hyparquet';
import { readValues, type CatalogueColumn, type Travel } from './parquet-table.ts';

/**
 * Row groups of published files as Arrow, the form DuckDB-WASM takes them in (row-loading.ts).
 * Loaded with DuckDB-WASM: a page that never queries never loads Arrow.
 */

/** The Arrow type of each way a column travels (parquet-table.ts). */
function arrowType(travel: Travel): DataType {
  switch (travel) {
    case 'int32':
      return new Int32();
    case 'int64':
      return new Int64();
    case 'float64':
      return new Float64();
    case 'bool':
      return new Bool();
    case 'day':
      return new DateDay();
    case 'instant':
      return new TimestampMillisecond();
    case 'text':
      return new Utf8();
    case 'texts':
      return new List(new Field('item', new Utf8(), true));
  }
}

/** The rows `rowStart`…`rowEnd` of one row group as Arrow vectors, by column name. */
export async function readColumns(
  file: AsyncBuffer,
  metadata: FileMetaData,
  rowStart: number,
  rowEnd: number,
  columns: readonly CatalogueColumn[],
): Promise<Map<string, Vector>> {
  const read = await readValues(file, metadata, rowStart, rowEnd, columns);
  return new Map(columns.map((column, i) => [column.name, vectorFromArray(read[i]!.values as unknown[], arrowType(read[i]!.travel))]));
}

/** Parts' vectors of the same columns (each part a map by column name) as one Arrow IPC stream. */
export function partsAsArrow(columns: readonly string[], parts: readonly ReadonlyMap<string, Vector>[]): Uint8Array {
  const tables = parts.map((part) => new Table(Object.fromEntries(columns.map((name) => [name, part.get(name)!]))));
  return tableToIPC(tables.length === 1 ? tables[0]! : new Table(tables.flatMap((table) => table.batches)), 'stream');
}
