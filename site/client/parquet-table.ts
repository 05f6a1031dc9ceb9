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
import { parquetReadObjects, type AsyncBuffer, type FileMetaData } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

/**
 * Parts of published Parquet files read in the browser with hyparquet, as Arrow that DuckDB-WASM
 * takes without any extension. DuckDB-WASM reads Parquet only through its parquet extension,
 * which it fetches from the network at run time; this keeps the page whole offline and on any
 * static host. Each column travels in a form Arrow holds exactly, and `columnSql` casts it back
 * to the type the declaration gives (decimals travel as text, so they stay exact).
 *
 * Instants (TIMESTAMPTZ) become plain TIMESTAMP in UTC: DuckDB-WASM has no ICU extension offline,
 * and without it date_trunc, year, ::DATE and strftime have no TIMESTAMPTZ form. The server's
 * session (TimeZone=UTC) computes the same values; only its text has the zone (`+00`).
 */

/** A column as the downloads catalogue describes it (`type` is the DuckDB type). */
export interface CatalogueColumn {
  readonly name: string;
  readonly type: string;
}

const INTEGER = /^(TINYINT|SMALLINT|INTEGER|UTINYINT|USMALLINT)$/;
const SIMPLE =
  /^(VARCHAR|TINYINT|SMALLINT|INTEGER|UTINYINT|USMALLINT|BIGINT|DOUBLE|FLOAT|BOOLEAN|DATE|TIMESTAMP|TIMESTAMPTZ|TIMESTAMP WITH TIME ZONE|DECIMAL\(\d+,\s*\d+\)|VARCHAR\[\])$/;

/**
 * The type the column gets in the browser: the declared one, TIMESTAMP for instants (in UTC), or
 * its JSON text for JSON and nested shapes (DuckDB-WASM has no json extension offline).
 */
export const browserType = (column: CatalogueColumn) =>
  !SIMPLE.test(column.type) ? 'VARCHAR' : /^(TIMESTAMPTZ|TIMESTAMP WITH TIME ZONE)$/.test(column.type) ? 'TIMESTAMP' : column.type;

const jsonText = (value: unknown) =>
  JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'bigint' ? inner.toString() : inner instanceof Date ? inner.toISOString() : inner));
const ms = (value: unknown) => (value instanceof Date ? value.getTime() : typeof value === 'bigint' ? Number(value) : (value as number));

/** The Arrow type a column travels as, and its values converted for it. */
function arrowColumn(column: CatalogueColumn, values: readonly unknown[]): { type: DataType; values: unknown[] } {
  const type = browserType(column);
  const each = (convert: (value: unknown) => unknown) => values.map((value) => (value === null || value === undefined ? null : convert(value)));
  if (INTEGER.test(type)) return { type: new Int32(), values: each(Number) };
  if (type === 'BIGINT') return { type: new Int64(), values: each((value) => BigInt(value as number | bigint)) };
  if (type === 'DOUBLE' || type === 'FLOAT') return { type: new Float64(), values: each(Number) };
  if (type === 'BOOLEAN') return { type: new Bool(), values: each(Boolean) };
  if (type === 'DATE') return { type: new DateDay(), values: each(ms) };
  if (type === 'TIMESTAMP') return { type: new TimestampMillisecond(), values: each(ms) };
  if (type.startsWith('DECIMAL')) {
    const scale = Number(/,\s*(\d+)\)/.exec(type)![1]);
    return { type: new Utf8(), values: each((value) => (typeof value === 'number' ? value.toFixed(scale) : String(value))) };
  }
  if (type === 'VARCHAR[]')
    return {
      type: new List(new Field('item', new Utf8(), true)),
      values: each((value) => (value as unknown[]).map((item) => (item === null ? null : String(item)))),
    };
  return { type: new Utf8(), values: each((value) => (typeof value === 'string' ? value : jsonText(value))) };
}

/** The rows `rowStart`…`rowEnd` (one row group: hyparquet fetches only its chunks of these columns) as Arrow vectors. */
export async function readColumns(
  file: AsyncBuffer,
  metadata: FileMetaData,
  rowStart: number,
  rowEnd: number,
  columns: readonly CatalogueColumn[],
): Promise<Map<string, Vector>> {
  const rows = await parquetReadObjects({ file, metadata, rowStart, rowEnd, columns: columns.map((column) => column.name), compressors });
  return new Map(
    columns.map((column) => {
      const { type, values } = arrowColumn(
        column,
        rows.map((row) => row[column.name]),
      );
      return [column.name, vectorFromArray(values, type)];
    }),
  );
}

/** Parts' vectors of the same columns (each part a map by column name) as one Arrow IPC stream. */
export function partsAsArrow(columns: readonly string[], parts: readonly ReadonlyMap<string, Vector>[]): Uint8Array {
  const tables = parts.map((part) => new Table(Object.fromEntries(columns.map((name) => [name, part.get(name)!]))));
  return tableToIPC(tables.length === 1 ? tables[0]! : new Table(tables.flatMap((table) => table.batches)), 'stream');
}

const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The select list that turns the travelled columns back into their browser types. */
export const columnSql = (columns: readonly CatalogueColumn[]) =>
  columns.map((column) => `CAST(${quoteIdentifier(column.name)} AS ${browserType(column)}) AS ${quoteIdentifier(column.name)}`).join(', ');

/** `CREATE TABLE` with every column in its browser type: the table exists even with no file. */
export const createTableSql = (name: string, columns: readonly CatalogueColumn[], schema?: string) =>
  `CREATE TABLE ${schema ? `${quoteIdentifier(schema)}.` : ''}${quoteIdentifier(name)} (${columns.map((column) => `${quoteIdentifier(column.name)} ${browserType(column)}`).join(', ')})`;

export { quoteIdentifier };
