import { parquetReadObjects, type AsyncBuffer, type FileMetaData, type ParquetParsers } from 'hyparquet';
import { decompress as zstd } from 'fzstd';
import { ARROW, textRows, valueText, type ArrowType, type TextResult } from './sql-result.ts';

/**
 * Parts of published Parquet files read in the browser with hyparquet: as text for a table page's
 * rows in the files' order (natural-rows.ts), or as the values each column travels as to
 * DuckDB-WASM (arrow-parts.ts), which takes them as Arrow without any extension. DuckDB-WASM reads
 * Parquet only through its parquet extension, which it fetches from the network at run time; this
 * keeps the page whole offline and on any static host. Each column travels in a form Arrow holds
 * exactly, and `columnSql` casts it back to the type the declaration gives (decimals travel as
 * text, so they stay exact). Nothing here loads Arrow: a page that shows rows in the files' order
 * never needs it.
 *
 * Instants (TIMESTAMPTZ) become plain TIMESTAMP in UTC: DuckDB-WASM has no ICU extension offline,
 * and without it date_trunc, year, ::DATE and strftime have no TIMESTAMPTZ form. The server's
 * session (TimeZone=UTC) computes the same values; only its text has the zone (`+00`).
 */

// The published files are written by odsnap's own writer, always with Zstandard
// (core/snapshot/table-writer.ts); hyparquet reads Snappy itself. Other codecs' decoders (a
// Brotli dictionary, a Snappy WebAssembly module) would only lengthen every table page's start.
const compressors = { ZSTD: (input: Uint8Array) => zstd(input) };

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

/** How a column travels to DuckDB-WASM: the Arrow type arrow-parts.ts gives it. */
export type Travel = 'int32' | 'int64' | 'float64' | 'bool' | 'day' | 'instant' | 'text' | 'texts';

/** A column's values as they travel, null for SQL NULL. */
export interface TravellingColumn {
  readonly travel: Travel;
  readonly values: readonly unknown[];
}

/** How a column travels, and its values converted for it. */
function travelling(column: CatalogueColumn, values: readonly unknown[]): TravellingColumn {
  const type = browserType(column);
  const each = (convert: (value: unknown) => unknown) => values.map((value) => (value === null || value === undefined ? null : convert(value)));
  if (INTEGER.test(type)) return { travel: 'int32', values: each(Number) };
  if (type === 'BIGINT') return { travel: 'int64', values: each((value) => BigInt(value as number | bigint)) };
  if (type === 'DOUBLE' || type === 'FLOAT') return { travel: 'float64', values: each(Number) };
  if (type === 'BOOLEAN') return { travel: 'bool', values: each(Boolean) };
  if (type === 'DATE') return { travel: 'day', values: each(ms) };
  if (type === 'TIMESTAMP') return { travel: 'instant', values: each(ms) };
  if (type.startsWith('DECIMAL')) {
    const scale = Number(/,\s*(\d+)\)/.exec(type)![1]);
    return { travel: 'text', values: each((value) => (typeof value === 'number' ? value.toFixed(scale) : String(value))) };
  }
  if (type === 'VARCHAR[]') return { travel: 'texts', values: each((value) => (value as unknown[]).map((item) => (item === null ? null : String(item)))) };
  return { travel: 'text', values: each((value) => (typeof value === 'string' ? value : jsonText(value))) };
}

/**
 * The Arrow type each way of travelling reads back as (arrow-parts.ts makes the vectors): a
 * travelling value is written as text by sql-result.ts, as if read back from its vector, so a page
 * shows what DuckDB-WASM would (test/site/client/parquet-table.test.ts holds the two equal).
 */
const readsBackAs: Record<Travel, ArrowType> = {
  int32: { typeId: ARROW.Int },
  int64: { typeId: ARROW.Int },
  float64: { typeId: ARROW.Float },
  bool: { typeId: ARROW.Bool },
  day: { typeId: ARROW.Date },
  instant: { typeId: ARROW.Timestamp, timezone: null },
  text: { typeId: ARROW.Utf8 },
  texts: { typeId: ARROW.List },
};

// hyparquet turns every value of each page it reads into text (and JSON into objects), though a
// view keeps a few hundred of a row group's rows: it gives the bytes back instead, and only the
// rows kept are decoded. JSON stays the text the file holds, as DuckDB writes it.
const bytesKept = { stringFromBytes: (bytes: Uint8Array) => bytes, jsonFromBytes: (bytes: Uint8Array) => bytes } as unknown as Partial<ParquetParsers>;
const utf8 = new TextDecoder();
function decoded(value: unknown): unknown {
  if (value instanceof Uint8Array) return utf8.decode(value);
  if (Array.isArray(value)) return value.map(decoded);
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, decoded(inner)]));
  return value;
}

/** The rows `rowStart`…`rowEnd` (one row group: hyparquet fetches only its chunks of these columns), each column as it travels. */
export async function readValues(
  file: AsyncBuffer,
  metadata: FileMetaData,
  rowStart: number,
  rowEnd: number,
  columns: readonly CatalogueColumn[],
): Promise<TravellingColumn[]> {
  const rows = await parquetReadObjects({ file, metadata, rowStart, rowEnd, columns: columns.map((column) => column.name), compressors, parsers: bytesKept });
  return columns.map((column) =>
    travelling(
      column,
      rows.map((row) => decoded(row[column.name])),
    ),
  );
}

/** The same rows as text: what DuckDB-WASM would show for them, without loading it or Arrow. */
export async function readText(
  file: AsyncBuffer,
  metadata: FileMetaData,
  rowStart: number,
  rowEnd: number,
  columns: readonly CatalogueColumn[],
): Promise<TextResult> {
  const read = await readValues(file, metadata, rowStart, rowEnd, columns);
  const rows = Array.from({ length: read[0]?.values.length ?? 0 }, (_, row) => read.map(({ travel, values }) => valueText(values[row], readsBackAs[travel])));
  return textRows(
    columns.map((column) => column.name),
    rows,
  );
}

const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The select list that turns the travelled columns back into their browser types. */
export const columnSql = (columns: readonly CatalogueColumn[]) =>
  columns.map((column) => `CAST(${quoteIdentifier(column.name)} AS ${browserType(column)}) AS ${quoteIdentifier(column.name)}`).join(', ');

/** `CREATE TABLE` with every column in its browser type: the table exists even with no file. */
export const createTableSql = (name: string, columns: readonly CatalogueColumn[], schema?: string) =>
  `CREATE TABLE ${schema ? `${quoteIdentifier(schema)}.` : ''}${quoteIdentifier(name)} (${columns.map((column) => `${quoteIdentifier(column.name)} ${browserType(column)}`).join(', ')})`;

export { quoteIdentifier };
