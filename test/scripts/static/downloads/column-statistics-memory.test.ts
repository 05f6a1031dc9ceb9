import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, quoteString, type Database } from '../../../../core/db/duckdb.ts';
import { text } from '../../../../core/text.ts';
import { column } from '../../../../datasets/vocabulary/column.ts';
import { describeColumns } from '../../../../scripts/static/downloads/column-statistics.ts';
import { tempDir } from '../../../fixtures/tiny.ts';

const ROWS = 200_000;
const WIDE = 6;

/**
 * Exact counts of distinct values need memory for a column's distinct values, not every column's:
 * a table of wide documents, each column's distinct from the others', described by a DuckDB given
 * less memory than all of them together take (a region's register ran the build out of memory).
 */
describe('column statistics of a table of wide distinct values, in little memory', () => {
  let db: Database;
  let source: string;

  beforeAll(async () => {
    const dir = await tempDir('column-statistics-memory');
    const file = join(dir, 'wide.parquet');
    const setUp = await openDatabase({ threads: 2 });
    const wide = Array.from({ length: WIDE }, (_, c) => `json_object('c', ${c}, 'i', i, 'text', repeat(md5(CAST(i * ${WIDE} + ${c} AS VARCHAR)), 4)) AS w${c}`);
    await setUp.run(`COPY (SELECT i, ${wide.join(', ')} FROM range(${ROWS}) AS r(i)) TO ${quoteString(file)} (FORMAT parquet)`);
    setUp.close();
    db = await openDatabase({ threads: 2, memoryLimit: '160MB', spillDir: dir });
    source = `read_parquet(${quoteString(file)})`;
  }, 60_000);
  afterAll(() => db?.close());

  it('counts every column’s distinct values exactly', async () => {
    const doc = text('A document.', 'Dokument.');
    const columns = Object.fromEntries(Array.from({ length: WIDE }, (_, c) => [`w${c}`, column.json(doc)]));
    const described = await describeColumns(db, source, columns, ROWS);
    expect(described.rows).toBe(ROWS);
    for (const statistics of described.columns) expect(statistics).toMatchObject({ nulls: 0, distinct: ROWS, distinctIsApproximate: false });
  }, 120_000);
});
