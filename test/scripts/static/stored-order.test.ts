import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, quoteString, type Database } from '../../../core/db/duckdb.ts';
import { followOneAnother } from '../../../scripts/static/stored-order.ts';
import { tempDir } from '../../fixtures/tiny.ts';

/** Files of rows (list position, id), each in that order, as the snapshot's writer leaves them. */
describe('whether files read one after another hold their rows in order', () => {
  let db: Database;
  let dir: string;
  const file = async (name: string, rows: [number | null, string][]) => {
    const path = join(dir, `${name}.parquet`);
    const values = rows.map(([position, id]) => `(${position ?? 'NULL'}, ${quoteString(id)})`).join(', ');
    await db.run(`COPY (SELECT * FROM (VALUES ${values}) AS t(list_position, id) ORDER BY list_position, id) TO ${quoteString(path)} (FORMAT parquet)`);
    return { path, rows: rows.length };
  };
  const order = ['list_position', 'id'];

  beforeAll(async () => {
    dir = await tempDir('stored-order');
    db = await openDatabase();
  });
  afterAll(() => db?.close());

  it('holds when each file ends before the next begins, and not when files overlap or come the other way', async () => {
    const first = await file('first', [
      [0, 'a'],
      [1, 'b'],
      [2, 'c'],
    ]);
    const second = await file('second', [
      [3, 'd'],
      [4, 'e'],
    ]);
    const overlapping = await file('overlapping', [
      [1, 'x'],
      [9, 'y'],
    ]);
    const one = await file('one', [[5, 'f']]);
    expect(await followOneAnother(db, [first, second], order)).toBe(true);
    expect(await followOneAnother(db, [first, second, one], order)).toBe(true);
    expect(await followOneAnother(db, [second, first], order)).toBe(false);
    expect(await followOneAnother(db, [first, overlapping], order)).toBe(false);
    expect(await followOneAnother(db, [first, one, second], order)).toBe(false);
  });

  it('orders nulls as DuckDB sorts them: last', async () => {
    const known = await file('known', [
      [0, 'a'],
      [1, 'b'],
    ]);
    const unknown = await file('unknown', [
      [null, 'c'],
      [null, 'd'],
    ]);
    expect(await followOneAnother(db, [known, unknown], order)).toBe(true);
    expect(await followOneAnother(db, [unknown, known], order)).toBe(false);
  });
});
