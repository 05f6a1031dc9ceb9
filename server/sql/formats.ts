import { randomBytes } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataType } from 'apache-arrow';
import { openDatabase, quoteIdentifier, quoteString } from '../../core/db/duckdb.ts';
import type { SqlResult } from './sandbox.ts';

/** A SQL result in the formats clients ask for: JSON, CSV, Parquet and Arrow IPC. */

export const formats = ['json', 'csv', 'parquet', 'arrow'] as const;
export type Format = (typeof formats)[number];

export const contentTypes: Record<Format, string> = {
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  parquet: 'application/vnd.apache.parquet',
  arrow: 'application/vnd.apache.arrow.stream',
};

export function toJson(result: SqlResult): string {
  const rows = result.rows.map((row) => Object.fromEntries(result.columns.map((c, i) => [c.name, row[i]])));
  return JSON.stringify({ columns: result.columns, rows });
}

/** toJson's very text, in pieces as the rows come, batch by batch: for results too large to hold. */
export async function* toJsonChunks(columns: SqlResult['columns'], batches: AsyncIterable<readonly (readonly unknown[])[]>): AsyncGenerator<string> {
  yield `{"columns":${JSON.stringify(columns)},"rows":[`;
  let first = true;
  for await (const batch of batches) {
    if (!batch.length) continue;
    const text = batch.map((row) => JSON.stringify(Object.fromEntries(columns.map((c, i) => [c.name, row[i]])))).join(',');
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

export const toCsv = (result: SqlResult) =>
  [result.columns.map((c) => csvField(c.name)), ...result.rows.map((row) => row.map(csvField))].map((fields) => fields.join(',')).join('\r\n') + '\r\n';

type Arrow = typeof import('apache-arrow');

/** Arrow types for DuckDB types; anything nested or unusual travels as its JSON text. */
function arrowColumn({ Bool, DateDay, Float64, Int32, Int64, TimestampMillisecond, Utf8 }: Arrow, type: string, values: readonly unknown[]): { type: DataType; values: unknown[] } {
  if (type === 'BOOLEAN') return { type: new Bool(), values: [...values] };
  if (['TINYINT', 'SMALLINT', 'INTEGER', 'UTINYINT', 'USMALLINT'].includes(type)) return { type: new Int32(), values: values.map((v) => (v === null ? null : Number(v))) };
  if (['BIGINT', 'UINTEGER', 'HUGEINT'].includes(type)) return { type: new Int64(), values: values.map((v) => (v === null ? null : BigInt(v as string | number))) };
  if (['FLOAT', 'DOUBLE'].includes(type) || type.startsWith('DECIMAL')) return { type: new Float64(), values: values.map((v) => (v === null ? null : Number(v))) };
  if (type === 'DATE') return { type: new DateDay(), values: values.map((v) => (v === null ? null : new Date(`${v}T00:00:00Z`))) };
  if (type.startsWith('TIMESTAMP')) return { type: new TimestampMillisecond(), values: values.map((v) => (v === null ? null : new Date(String(v).replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')))) };
  if (type === 'VARCHAR') return { type: new Utf8(), values: [...values] };
  return { type: new Utf8(), values: values.map((v) => (v === null ? null : typeof v === 'string' ? v : JSON.stringify(v))) };
}

/** Arrow IPC; apache-arrow is loaded when first asked for, not by every command that lists the formats. */
export async function toArrow(result: SqlResult): Promise<Uint8Array> {
  const arrow = await import('apache-arrow');
  const columns = Object.fromEntries(
    result.columns.map((column, i) => {
      const { type, values } = arrowColumn(arrow, column.type, result.rows.map((row) => row[i]));
      return [column.name, arrow.vectorFromArray(values, type)];
    }),
  );
  return arrow.tableToIPC(new arrow.Table(columns), 'stream');
}

/**
 * Parquet through a second DuckDB that only reads the result back from a temporary file: the
 * sandbox may not write files, and DuckDB is the writer whose types we trust.
 */
export async function toParquet(result: SqlResult): Promise<Buffer> {
  const stem = join(tmpdir(), `odsnap-sql-${randomBytes(6).toString('hex')}`);
  const rows = result.rows.map((row) => JSON.stringify(Object.fromEntries(result.columns.map((c, i) => [c.name, row[i]])))).join('\n');
  await writeFile(`${stem}.jsonl`, rows ? `${rows}\n` : '');
  const db = await openDatabase({ memoryLimit: '256MB', threads: 1 });
  try {
    const columns = `{${result.columns.map((c) => `${quoteString(c.name)}: ${quoteString(c.type)}`).join(', ')}}`;
    const source = result.rows.length
      ? `read_json(${quoteString(`${stem}.jsonl`)}, format = 'newline_delimited', columns = ${columns})`
      : `(SELECT ${result.columns.map((c) => `CAST(NULL AS ${c.type}) AS ${quoteIdentifier(c.name)}`).join(', ') || '1 AS "empty"'} LIMIT 0)`;
    await db.run(`COPY (SELECT * FROM ${source}) TO ${quoteString(`${stem}.parquet`)} (FORMAT parquet, COMPRESSION zstd)`);
    return await readFile(`${stem}.parquet`);
  } finally {
    db.close();
    await rm(`${stem}.jsonl`, { force: true });
    await rm(`${stem}.parquet`, { force: true });
  }
}

export async function encode(result: SqlResult, format: Format): Promise<Buffer> {
  switch (format) {
    case 'json':
      return Buffer.from(toJson(result));
    case 'csv':
      return Buffer.from(toCsv(result));
    case 'arrow':
      return Buffer.from(await toArrow(result));
    case 'parquet':
      return toParquet(result);
  }
}
