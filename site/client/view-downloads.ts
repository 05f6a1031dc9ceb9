import type { Table } from 'apache-arrow';
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { BrowserDatabase } from './browser-duckdb.ts';
import { valueText, type ArrowType } from './sql-result.ts';

/**
 * A table page's view as a file to save: CSV written by DuckDB-WASM's COPY, JSON and Parquet
 * written here from its Arrow result. DuckDB-WASM writes JSON and Parquet only through extensions
 * it fetches at run time, which an offline page or a static host may not have; hyparquet-writer
 * (hyparquet's companion) writes the Parquet instead.
 */

export type DownloadFormat = 'csv' | 'json' | 'parquet';

/** Arrow's type ids (apache-arrow's Type enum) this module tells apart. */
const ARROW = { Int: 2, Float: 3, Bool: 6, Decimal: 7, Date: 8, Timestamp: 10 } as const;

interface Field {
  readonly name: string;
  readonly type: ArrowType & { readonly bitWidth?: number; readonly precision?: number };
}

const fieldsOf = (table: Table) => table.schema.fields as unknown as readonly Field[];

/** Rows as a JSON array of objects: numbers and booleans as JSON's own, every other value as its text (decimals stay exact). */
export function jsonOf(table: Table): string {
  const fields = fieldsOf(table);
  const vectors = fields.map((_, i) => table.getChildAt(i)!);
  const lines: string[] = [];
  for (let row = 0; row < table.numRows; row++) {
    const values = fields.map((field, i) => {
      const value = vectors[i]!.get(row) as unknown;
      const text = valueText(value, field.type);
      const plain = text !== null && [ARROW.Int, ARROW.Float, ARROW.Bool].includes(field.type.typeId as 2) && /^(-?[\d.e+-]+|true|false)$/.test(text);
      return `${JSON.stringify(field.name)}:${text === null ? 'null' : plain ? text : JSON.stringify(text)}`;
    });
    lines.push(`{${values.join(',')}}`);
  }
  return `[${lines.join(',\n')}]\n`;
}

/** A Parquet column for an Arrow one: its schema element and its values as hyparquet-writer takes them. */
function parquetColumn(field: Field, values: readonly unknown[]): { element: Record<string, unknown>; data: unknown[] } {
  const base = { name: field.name, repetition_type: 'OPTIONAL' };
  const each = (convert: (value: unknown) => unknown) => values.map((value) => (value === null || value === undefined ? null : convert(value)));
  const ms = (value: unknown) => new Date(value instanceof Date ? value.getTime() : Number(value));
  switch (field.type.typeId) {
    case ARROW.Int:
      return field.type.bitWidth === 64
        ? { element: { ...base, type: 'INT64' }, data: each((value) => BigInt(value as bigint)) }
        : { element: { ...base, type: 'INT32' }, data: each(Number) };
    case ARROW.Float:
      return { element: { ...base, type: 'DOUBLE' }, data: each(Number) };
    case ARROW.Bool:
      return { element: { ...base, type: 'BOOLEAN' }, data: each(Boolean) };
    case ARROW.Date:
      return { element: { ...base, type: 'INT32', converted_type: 'DATE' }, data: each(ms) };
    case ARROW.Timestamp:
      return { element: { ...base, type: 'INT64', converted_type: 'TIMESTAMP_MILLIS' }, data: each(ms) };
    case ARROW.Decimal:
      // The unscaled integer, exact, where 64 bits hold it.
      if ((field.type.precision ?? 38) <= 18)
        return {
          element: { ...base, type: 'INT64', converted_type: 'DECIMAL', precision: field.type.precision, scale: field.type.scale ?? 0 },
          data: each((value) => BigInt(String(value))),
        };
  }
  return { element: { ...base, type: 'BYTE_ARRAY', converted_type: 'UTF8' }, data: each((value) => valueText(value, field.type)) };
}

export function parquetOf(table: Table): ArrayBuffer {
  const fields = fieldsOf(table);
  const columns = fields.map((field, i) => {
    const vector = table.getChildAt(i)!;
    return parquetColumn(
      field,
      Array.from({ length: table.numRows }, (_, row) => vector.get(row) as unknown),
    );
  });
  return parquetWriteBuffer({
    schema: [{ name: 'root', num_children: columns.length }, ...columns.map((column) => column.element)] as never,
    columnData: columns.map((column, i) => ({ name: fields[i]!.name, data: column.data })),
  });
}

/** The view's rows (`sql`, every row of it) as a file in `format`. */
export async function viewFile(database: BrowserDatabase, sql: string, format: DownloadFormat): Promise<Blob> {
  if (format === 'csv') return new Blob([(await database.copyCsv(sql)) as Uint8Array<ArrayBuffer>], { type: 'text/csv;charset=utf-8' });
  const table = await database.queryArrow(sql);
  return format === 'json' ? new Blob([jsonOf(table)], { type: 'application/json' }) : new Blob([parquetOf(table)], { type: 'application/vnd.apache.parquet' });
}

/** Saves a file through a link clicked for the visitor. */
export function save(blob: Blob, name: string, parent: HTMLElement): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  parent.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
