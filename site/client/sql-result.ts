/**
 * A DuckDB-WASM result (an Arrow table) as text: each value written as DuckDB's own CLI and
 * `/api/sql` write it (decimals exact, days as YYYY-MM-DD, timestamps as `2024-05-01 06:00:00`,
 * with `+00` when they carry a zone, nested values as JSON), for the result table and the CSV
 * download.
 */

/** Arrow's type ids (`Type` in apache-arrow's enum.ts): those written with more than String(), and the plain ones columns travel as (parquet-table.ts). */
export const ARROW = { Int: 2, Float: 3, Utf8: 5, Bool: 6, Decimal: 7, Date: 8, Timestamp: 10, List: 12, Struct: 13, Map: 17, FixedSizeList: 16 } as const;

/** What this module reads of an Arrow type. */
export interface ArrowType {
  readonly typeId: number;
  readonly scale?: number;
  readonly timezone?: string | null;
}

/** The part of an Arrow table this module reads: named, typed columns of values. */
export interface ArrowLike {
  readonly numRows: number;
  readonly schema: { readonly fields: readonly { readonly name: string; readonly type: ArrowType }[] };
  getChildAt(index: number): { get(row: number): unknown } | null;
}

export interface TextResult {
  readonly columns: readonly string[];
  readonly rowCount: number;
  /** Rows `from`…`to` (exclusive) as text; null for SQL NULL. */
  rows(from?: number, to?: number): (string | null)[][];
}

/** Rows already written as text. */
export function textRows(columns: readonly string[], rows: (string | null)[][]): TextResult {
  return { columns, rowCount: rows.length, rows: (from = 0, to = rows.length) => rows.slice(from, to) };
}

const twoDigits = (n: number) => String(n).padStart(2, '0');

function dayText(ms: number): string {
  const date = new Date(ms);
  return `${date.getUTCFullYear()}-${twoDigits(date.getUTCMonth() + 1)}-${twoDigits(date.getUTCDate())}`;
}

/** An instant (ms since 1970, fractions of a ms kept) as DuckDB writes a TIMESTAMP: `2024-05-01 06:00:00.5`, UTC. */
export function timestampText(ms: number): string {
  const micros = Math.round(ms * 1000);
  const seconds = Math.floor(micros / 1_000_000);
  const fraction = micros - seconds * 1_000_000;
  const date = new Date(seconds * 1000);
  const time = `${twoDigits(date.getUTCHours())}:${twoDigits(date.getUTCMinutes())}:${twoDigits(date.getUTCSeconds())}`;
  return `${dayText(seconds * 1000)} ${time}${fraction ? `.${String(fraction).padStart(6, '0').replace(/0+$/, '')}` : ''}`;
}

/** An unscaled decimal integer (`-12345`) with its scale (2) as `-123.45`. */
export function decimalText(unscaled: string, scale: number): string {
  if (scale <= 0) return unscaled;
  const negative = unscaled.startsWith('-');
  const digits = (negative ? unscaled.slice(1) : unscaled).padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

const jsonText = (value: unknown) => JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'bigint' ? inner.toString() : inner));

/** Arrow's nested values (vectors, struct rows, maps) as plain JS. */
function plain(value: unknown): unknown {
  if (value && typeof value === 'object' && 'toJSON' in value && typeof value.toJSON === 'function') return value.toJSON();
  if (value && typeof value === 'object' && 'toArray' in value && typeof value.toArray === 'function') return [...(value.toArray() as Iterable<unknown>)];
  return value;
}

export function valueText(value: unknown, type: ArrowType): string | null {
  if (value === null || value === undefined) return null;
  switch (type.typeId) {
    case ARROW.Decimal:
      return decimalText(String(value), type.scale ?? 0);
    case ARROW.Date:
      return dayText(value instanceof Date ? value.getTime() : Number(value));
    case ARROW.Timestamp:
      return timestampText(value instanceof Date ? value.getTime() : Number(value)) + (type.timezone ? '+00' : '');
    case ARROW.List:
    case ARROW.FixedSizeList:
    case ARROW.Struct:
    case ARROW.Map:
      return jsonText(plain(value));
    default:
      return typeof value === 'object' && !(value instanceof Date) ? jsonText(plain(value)) : String(value);
  }
}

export function textResult(table: ArrowLike): TextResult {
  const fields = table.schema.fields;
  const vectors = fields.map((_, i) => table.getChildAt(i));
  return {
    columns: fields.map((field) => field.name),
    rowCount: table.numRows,
    rows(from = 0, to = table.numRows) {
      const rows: (string | null)[][] = [];
      for (let row = from; row < Math.min(to, table.numRows); row++) {
        rows.push(fields.map((field, i) => valueText(vectors[i]?.get(row), field.type)));
      }
      return rows;
    },
  };
}

/** A field of a CSV file (RFC 4180): quoted when it holds a quote, a comma or a line break; NULL empty. */
export const csvField = (text: string | null) => (text === null ? '' : /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);

/** The whole result as CSV (RFC 4180, CRLF), as `/api/sql?format=csv` writes it. */
export const csvOf = (result: TextResult) =>
  [result.columns.map(csvField), ...result.rows().map((row) => row.map(csvField))].map((fields) => fields.join(',')).join('\r\n') + '\r\n';
