import type { DataType } from 'apache-arrow';
import type { SqlResult } from './sandbox.ts';

/**
 * A SQL result in the formats clients ask for: JSON, CSV and Arrow IPC written here, Parquet by
 * DuckDB itself (SqlSandbox.copy).
 */

export const formats = ['json', 'csv', 'parquet', 'arrow'] as const;
export type Format = (typeof formats)[number];

export const contentTypes: Record<Format, string> = {
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  parquet: 'application/vnd.apache.parquet',
  arrow: 'application/vnd.apache.arrow.stream',
};

/** A row as JSON text: an object by column name. */
const jsonRow = (columns: SqlResult['columns'], row: readonly unknown[]) => JSON.stringify(Object.fromEntries(columns.map((c, i) => [c.name, row[i]])));

/** `{"columns": [{name, type}, …], "rows": [{column: value, …}, …]}` */
export const toJson = (result: SqlResult): string =>
  `{"columns":${JSON.stringify(result.columns)},"rows":[${result.rows.map((row) => jsonRow(result.columns, row)).join(',')}]}`;

/** toJson's very text, in pieces as the rows come, batch by batch: for results too large to hold. */
export async function* toJsonChunks(columns: SqlResult['columns'], batches: AsyncIterable<readonly (readonly unknown[])[]>): AsyncGenerator<string> {
  yield `{"columns":${JSON.stringify(columns)},"rows":[`;
  let first = true;
  for await (const batch of batches) {
    if (!batch.length) continue;
    const text = batch.map((row) => jsonRow(columns, row)).join(',');
    yield first ? text : `,${text}`;
    first = false;
  }
  yield ']}';
}

const csvField = (value: unknown) => {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

const csvLine = (fields: readonly unknown[]) => `${fields.map(csvField).join(',')}\r\n`;

/** RFC 4180 CSV with a header line, in pieces as the rows come; lists and structs as JSON. */
export async function* toCsvChunks(columns: SqlResult['columns'], batches: AsyncIterable<readonly (readonly unknown[])[]>): AsyncGenerator<string> {
  yield csvLine(columns.map((c) => c.name));
  for await (const batch of batches) if (batch.length) yield batch.map(csvLine).join('');
}

type Arrow = typeof import('apache-arrow');

const INT32_MAX = 2 ** 31 - 1;
const INT64_MAX = 2n ** 63n - 1n;
const DAY_MS = 86_400_000;

/** DuckDB's text of a date, "-infinity" to "infinity", BC years too, as days since 1970-01-01 (infinities as DuckDB stores them). */
export function dateDays(text: string): number {
  if (text === 'infinity') return INT32_MAX;
  if (text === '-infinity') return -INT32_MAX;
  const [, year, month, day, bc] = /^(\d+)-(\d\d)-(\d\d)( \(BC\))?$/.exec(text) ?? [];
  if (!year) throw new Error(`not a date: ${text}`);
  const date = new Date(0);
  date.setUTCFullYear(bc ? 1 - Number(year) : Number(year), Number(month) - 1, Number(day));
  return Math.round(date.getTime() / DAY_MS);
}

/** DuckDB's text of a timestamp (any precision, with or without an offset) as microseconds since 1970 (infinities as DuckDB stores them). */
export function instantMicros(text: string): bigint {
  if (text === 'infinity') return INT64_MAX;
  if (text === '-infinity') return -INT64_MAX;
  const [, year, month, day, bc, hour, minute, second, fraction = '', offsetHours, offsetMinutes = '00'] =
    /^(\d+)-(\d\d)-(\d\d)( \(BC\))?[ T](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:([+-]\d\d)(?::?(\d\d))?)?$/.exec(text) ?? [];
  if (!year) throw new Error(`not a timestamp: ${text}`);
  const date = new Date(0);
  date.setUTCFullYear(bc ? 1 - Number(year) : Number(year), Number(month) - 1, Number(day));
  date.setUTCHours(Number(hour), Number(minute), Number(second), 0);
  const offset = offsetHours ? (Number(offsetHours) * 60 + Math.sign(Number(`${offsetHours}1`)) * Number(offsetMinutes)) * 60_000 : 0;
  return BigInt(date.getTime() - offset) * 1000n + BigInt(fraction.padEnd(6, '0').slice(0, 6));
}

/** A vector of fixed-width values (days, microseconds) with its nulls. */
function fixedVector(
  arrow: Arrow,
  type: InstanceType<Arrow['DateDay']> | InstanceType<Arrow['Timestamp']>,
  values: readonly unknown[],
  convert: (text: string) => number | bigint,
) {
  const data = type instanceof arrow.DateDay ? new Int32Array(values.length) : new BigInt64Array(values.length);
  const validity = new Uint8Array(Math.ceil(values.length / 8));
  let nullCount = 0;
  values.forEach((value, i) => {
    if (value === null || value === undefined) {
      nullCount++;
      return;
    }
    data[i] = convert(String(value)) as never;
    validity[i >> 3]! |= 1 << (i & 7);
  });
  return arrow.makeVector(arrow.makeData({ type, length: values.length, nullCount, nullBitmap: nullCount ? validity : null, data } as never));
}

/**
 * An Arrow vector for a DuckDB type: dates as days and timestamps as microseconds (infinities as
 * DuckDB stores them, so DuckDB reads them back as infinities); anything nested or unusual
 * travels as its JSON text.
 */
function arrowVector(arrow: Arrow, type: string, values: readonly unknown[]) {
  const { Bool, Float64, Int32, Int64, Utf8 } = arrow;
  const vector = (arrowType: DataType, converted: unknown[]) => arrow.vectorFromArray(converted, arrowType);
  if (type === 'BOOLEAN') return vector(new Bool(), [...values]);
  if (['TINYINT', 'SMALLINT', 'INTEGER', 'UTINYINT', 'USMALLINT'].includes(type))
    return vector(
      new Int32(),
      values.map((v) => (v === null ? null : Number(v))),
    );
  if (['BIGINT', 'UINTEGER', 'UBIGINT', 'HUGEINT', 'UHUGEINT'].includes(type)) {
    // Sums are HUGEINT: 64 bits when every value fits, else the numbers' text.
    const integers = values.map((v) => (v === null ? null : BigInt(v as string | number)));
    if (integers.every((v) => v === null || (v <= INT64_MAX && v >= -INT64_MAX - 1n))) return vector(new Int64(), integers);
    return vector(
      new Utf8(),
      integers.map((v) => (v === null ? null : String(v))),
    );
  }
  if (['FLOAT', 'DOUBLE'].includes(type) || type.startsWith('DECIMAL'))
    return vector(
      new Float64(),
      values.map((v) => (v === null ? null : Number(v))),
    );
  if (type === 'DATE') return fixedVector(arrow, new arrow.DateDay(), values, dateDays);
  if (/^TIMESTAMP(_S|_MS|_NS)?$/.test(type)) return fixedVector(arrow, new arrow.Timestamp(arrow.TimeUnit.MICROSECOND), values, instantMicros);
  if (type === 'TIMESTAMP WITH TIME ZONE') return fixedVector(arrow, new arrow.Timestamp(arrow.TimeUnit.MICROSECOND, 'UTC'), values, instantMicros);
  if (type === 'VARCHAR') return vector(new Utf8(), [...values]);
  return vector(
    new Utf8(),
    values.map((v) => (v === null ? null : typeof v === 'string' ? v : JSON.stringify(v))),
  );
}

/** Arrow IPC; apache-arrow is loaded when first asked for, not by every command that lists the formats. */
export async function toArrow(result: SqlResult): Promise<Uint8Array> {
  const arrow = await import('apache-arrow');
  const columns = Object.fromEntries(
    result.columns.map((column, i) => [
      column.name,
      arrowVector(
        arrow,
        column.type,
        result.rows.map((row) => row[i]),
      ),
    ]),
  );
  return arrow.tableToIPC(new arrow.Table(columns), 'stream');
}
