import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { column, derived, nullable } from '../../../datasets/vocabulary/column.ts';
import { defineTable, recordColumns } from '../../../datasets/vocabulary/table.ts';
import type { Table } from '../../../core/table.ts';
import { text } from '../../../core/text.ts';
import { readList, rowDecoder } from '../../../core/db/columns.ts';
import { openDatabase, quoteString, type Database } from '../../../core/db/duckdb.ts';
import { createTableView } from '../../../core/snapshot/read.ts';
import { TableWriter } from '../../../core/snapshot/table-writer.ts';

const doc = text('x', 'x');
const spec = defineTable({
  doc,
  columns: {
    station: column.varchar(doc),
    at: column.instant(doc),
    value: nullable(column.double(doc)),
    note: nullable(column.json(doc)),
  },
  key: ['station', 'at'],
  partitionBy: [
    { name: 'station', column: 'station' },
    { name: 'year', column: 'at', part: 'year' },
  ],
  sortBy: ['at'],
  timeColumn: 'at',
});
const table: Table = { ...spec, name: 'readings', columns: { ...spec.columns, ...recordColumns } };

let dir: string;
let db: Database;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'odsnap-writer-'));
  db = await openDatabase();
});
afterEach(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

const at = (iso: string) => Date.parse(iso);
const read = async (path: string) =>
  (await db.rows(`SELECT ${readList(table.columns)} FROM read_parquet(${quoteString(join(dir, 'out', path))})`)).map(rowDecoder(table.columns));

describe('TableWriter', () => {
  it('writes one file per partition, each in the declared order however the rows arrived', async () => {
    const writer = new TableWriter(table, 'air/readings', dir);
    const rows = [
      { station: 'b', at: at('2025-01-01T02:00:00Z'), value: 3, note: null },
      { station: 'a', at: at('2025-01-01T01:00:00Z'), value: 2, note: { why: 'late' } },
      { station: 'a', at: at('2024-12-31T23:00:00Z'), value: 1, note: null },
      { station: 'a', at: at('2025-01-01T00:00:00Z'), value: null, note: null },
    ];
    for (const row of rows) writer.write(row);
    const manifest = await writer.finish(db, join(dir, 'out'));
    expect(manifest.rows).toBe(4);
    expect(manifest.files.map((f) => [f.path, f.rows, f.min, f.max])).toEqual([
      ['air/readings/station=a/year=2024/part-0.parquet', 1, '2024-12-31T23:00:00.000Z', '2024-12-31T23:00:00.000Z'],
      ['air/readings/station=a/year=2025/part-0.parquet', 2, '2025-01-01T00:00:00.000Z', '2025-01-01T01:00:00.000Z'],
      ['air/readings/station=b/year=2025/part-0.parquet', 1, '2025-01-01T02:00:00.000Z', '2025-01-01T02:00:00.000Z'],
    ]);
    expect(await read('air/readings/station=a/year=2025/part-0.parquet')).toEqual([
      { station: 'a', at: at('2025-01-01T00:00:00Z'), value: null, note: null, extra: null, upstream_json: null },
      { station: 'a', at: at('2025-01-01T01:00:00Z'), value: 2, note: { why: 'late' }, extra: null, upstream_json: null },
    ]);
  });

  it('holds each key once, the row first written, whether rows repeat in order or out of it', async () => {
    const writer = new TableWriter(table, 'air/readings', dir);
    const first = [
      { station: 'a', at: at('2025-01-01T00:00:00Z'), value: 1, note: null },
      { station: 'a', at: at('2025-01-01T01:00:00Z'), value: 2, note: null },
    ];
    // Station a's rows again (the same twice in a row, then out of order, one with another value), and b's once.
    for (const row of [...first, first[1]!, { ...first[0]!, value: 9 }, first[1]!]) writer.write(row);
    writer.write({ station: 'b', at: at('2025-01-01T00:00:00Z'), value: 3, note: null });
    const manifest = await writer.finish(db, join(dir, 'out'));
    expect(writer.repeated).toBe(3);
    expect(manifest.rows).toBe(3);
    expect(manifest.files.map((f) => [f.path, f.rows])).toEqual([
      ['air/readings/station=a/year=2025/part-0.parquet', 2],
      ['air/readings/station=b/year=2025/part-0.parquet', 1],
    ]);
    expect((await read('air/readings/station=a/year=2025/part-0.parquet')).map((row) => row.value)).toEqual([1, 2]);
  });

  it('gives a table without rows one empty file, so readers still learn its schema', async () => {
    const manifest = await new TableWriter(table, 'air/readings', dir).finish(db, join(dir, 'out'));
    expect(manifest.files).toMatchObject([{ path: 'air/readings/part-0.parquet', rows: 0 }]);
    const columns = await db.rows<{ column_name: string; column_type: string }>(
      `DESCRIBE SELECT * FROM read_parquet(${quoteString(join(dir, 'out', 'air/readings/part-0.parquet'))})`,
    );
    expect(columns.map((c) => `${c.column_name} ${c.column_type}`)).toEqual([
      'station VARCHAR',
      'at TIMESTAMP WITH TIME ZONE',
      'value DOUBLE',
      'note JSON',
      'extra JSON',
      'upstream_json VARCHAR',
    ]);
  });

  it('keeps partition values that are not safe in a path inside one directory level', async () => {
    const writer = new TableWriter(table, 'air/readings', dir);
    writer.write({ station: '../x/y z', at: at('2025-06-01T00:00:00Z'), value: 1, note: null });
    const manifest = await writer.finish(db, join(dir, 'out'));
    expect(manifest.files[0]!.path).toBe('air/readings/station=..%2Fx%2Fy%20z/year=2025/part-0.parquet');
    expect(manifest.files[0]!.partition).toEqual({ station: '../x/y z', year: '2025' });
  });

  it('writes the same bytes for the same rows in another arrival order', async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => ({
      station: 's',
      at: at('2025-03-01T00:00:00Z') + ((i * 7919) % 5000) * 3_600_000,
      value: i,
      note: null,
    }));
    const first = new TableWriter(table, 't', await mkdtemp(join(dir, 'a-')));
    for (const row of rows) first.write(row);
    const second = new TableWriter(table, 't', await mkdtemp(join(dir, 'b-')));
    for (const row of [...rows].reverse()) second.write(row);
    const [a, b] = [await first.finish(db, join(dir, 'one')), await second.finish(db, join(dir, 'two'))];
    expect(a.files.map((f) => f.sha256)).toEqual(b.files.map((f) => f.sha256));
  });

  it('fills derived columns from the tables finished before, and orders rows by them', async () => {
    const salesSpec = defineTable({
      doc,
      columns: { sale: column.varchar(doc), day: column.day(doc), items: column.varcharList(doc) },
      key: ['sale'],
      sortBy: ['sale'],
    });
    const itemsSpec = defineTable({
      doc,
      columns: {
        item: column.varchar(doc),
        first_sold: derived(column.day(doc), { sql: 'SELECT item, min(day) AS value FROM (SELECT unnest(items) AS item, day FROM sales) GROUP BY item' }),
      },
      key: ['item'],
      sortBy: ['first_sold', 'item'],
    });
    const sales: Table = { ...salesSpec, name: 'sales', columns: { ...salesSpec.columns, ...recordColumns } };
    const items: Table = { ...itemsSpec, name: 'items', columns: { ...itemsSpec.columns, ...recordColumns } };
    const salesWriter = new TableWriter(sales, 'shop/sales', await mkdtemp(join(dir, 's-')));
    salesWriter.write({ sale: 's1', day: '2025-03-02', items: ['a', 'b'] });
    salesWriter.write({ sale: 's2', day: '2025-03-01', items: ['b'] });
    salesWriter.write({ sale: 's3', day: '2025-01-15', items: ['c'] });
    const itemsWriter = new TableWriter(items, 'shop/items', await mkdtemp(join(dir, 'i-')));
    expect(itemsWriter.derives).toBe(true);
    // Written without the derived value, or with a stale one: the writer works it out again.
    for (const item of ['a', 'b', 'c', 'never-sold']) itemsWriter.write({ item, ...(item === 'a' ? { first_sold: '1999-01-01' } : {}) });
    const out = join(dir, 'out');
    const sold = await salesWriter.finish(db, out);
    await createTableView(
      db,
      'sales',
      sold.files.map((file) => join(out, file.path)),
    );
    const manifest = await itemsWriter.finish(db, out);
    const rows = await db.rows(`SELECT ${readList(items.columns)} FROM read_parquet(${quoteString(join(out, manifest.files[0]!.path))})`);
    expect(rows.map(rowDecoder(items.columns)).map((row) => [row.item, row.first_sold])).toEqual([
      ['c', '2025-01-15'],
      ['b', '2025-03-01'],
      ['a', '2025-03-02'],
      ['never-sold', null],
    ]);
  });

  it('refuses a derived column that would partition the table or place its rows in time', () => {
    const spec = defineTable({
      doc,
      columns: { id: column.varchar(doc), at: derived(column.instant(doc), { sql: 'SELECT 1' }) },
      key: ['id'],
      sortBy: ['id'],
      timeColumn: 'at',
    });
    const table: Table = { ...spec, name: 'things', columns: { ...spec.columns, ...recordColumns } };
    expect(() => new TableWriter(table, 'x/things', dir)).toThrow('the derived column at cannot partition the table or be its time column');
  });
});
