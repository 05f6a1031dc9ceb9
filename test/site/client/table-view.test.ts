import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  boundable,
  boundarySql,
  boundedPageSql,
  conditionSql,
  countSql,
  facetFilter,
  facetSql,
  kindsFor,
  PAGE_ROWS,
  pageSql,
  viewSql,
  whereSql,
  type Filter,
  type ViewState,
} from '../../../site/client/table-view.ts';

/**
 * The SQL a table page's view makes: every filter kind, quoting of odd names and values, and
 * the bounded page (read by the sort column first) giving the very rows of the plain one, checked
 * by DuckDB over a table with awkward names, NULLs and ties.
 */

const TABLE = 'odd "table"';
const KEY = ['id'];
let connection: DuckDBConnection;

beforeAll(async () => {
  connection = await (await DuckDBInstance.create(':memory:')).connect();
  // 1,200 rows: ties in every column, NULLs in `we"ird` and in day, a quote in the text.
  await connection.run(`CREATE TABLE "odd ""table""" AS SELECT range AS id,
    CASE WHEN range % 7 = 0 THEN NULL ELSE 'O''Brien ' || (range % 5) END AS "we""ird",
    (range % 13) * 1.5 AS price,
    CASE WHEN range % 11 = 0 THEN NULL ELSE DATE '2024-01-01' + INTERVAL (range % 40) DAY END::DATE AS day
    FROM range(1200)`);
});
afterAll(() => connection?.closeSync());

const rows = async (sql: string) => (await connection.runAndReadAll(sql)).getRowsJson();
const count = async (filters: Filter[]) => Number((await rows(countSql(TABLE, filters)))[0]![0]);

describe('the SQL of a table view', () => {
  it('writes each kind of filter, quoting identifiers and text', () => {
    expect(conditionSql({ column: 'we"ird', kind: 'equals', value: "O'Brien" })).toBe(`"we""ird" = 'O''Brien'`);
    expect(conditionSql({ column: 'price', kind: 'range', from: '1', to: '9.5' })).toBe(`"price" >= '1' AND "price" <= '9.5'`);
    expect(conditionSql({ column: 'price', kind: 'range', to: '9.5' })).toBe(`"price" <= '9.5'`);
    expect(conditionSql({ column: 'we"ird', kind: 'contains', text: "n'%_" })).toBe(`contains(lower(CAST("we""ird" AS VARCHAR)), lower('n''%_'))`);
    expect(conditionSql({ column: 'day', kind: 'null' })).toBe('"day" IS NULL');
    expect(conditionSql({ column: 'day', kind: 'not-null' })).toBe('"day" IS NOT NULL');
    expect(whereSql([])).toBe('');
    expect(whereSql([{ column: 'day', kind: 'range' }])).toBe('');
    expect(viewSql(TABLE, { filters: [], page: 0 }, KEY)).toBe('SELECT * FROM "odd ""table"""');
    expect(pageSql(TABLE, { filters: [], sort: { column: 'price', descending: true }, page: 2 }, KEY)).toBe(
      `SELECT * FROM "odd ""table""" ORDER BY "price" DESC NULLS LAST, "id" LIMIT ${PAGE_ROWS} OFFSET ${2 * PAGE_ROWS}`,
    );
  });

  it('counts what each filter keeps, as DuckDB does, values cast to the column’s type', async () => {
    expect(await count([])).toBe(1200);
    const weird = "O'Brien 3";
    expect(await count([{ column: 'we"ird', kind: 'equals', value: weird }])).toBe(
      Array.from({ length: 1200 }, (_, i) => i).filter((i) => i % 7 !== 0 && i % 5 === 3).length,
    );
    expect(await count([{ column: 'price', kind: 'range', from: '3', to: '6' }])).toBe(
      Array.from({ length: 1200 }, (_, i) => (i % 13) * 1.5).filter((p) => p >= 3 && p <= 6).length,
    );
    expect(await count([{ column: 'day', kind: 'range', from: '2024-02-01' }])).toBe(
      Array.from({ length: 1200 }, (_, i) => i).filter((i) => i % 11 !== 0 && i % 40 >= 31).length,
    );
    // Any case, and % or _ are plain characters, not wildcards.
    expect(await count([{ column: 'we"ird', kind: 'contains', text: "o'BRIEN 1" }])).toBe(
      Array.from({ length: 1200 }, (_, i) => i).filter((i) => i % 7 !== 0 && i % 5 === 1).length,
    );
    expect(await count([{ column: 'we"ird', kind: 'contains', text: '%' }])).toBe(0);
    expect(await count([{ column: 'day', kind: 'null' }])).toBe(Array.from({ length: 1200 }, (_, i) => i).filter((i) => i % 11 === 0).length);
    expect(
      await count([
        { column: 'day', kind: 'not-null' },
        { column: 'we"ird', kind: 'null' },
      ]),
    ).toBe(Array.from({ length: 1200 }, (_, i) => i).filter((i) => i % 11 !== 0 && i % 7 === 0).length);
  });

  it('gives a page bounded by its last sort value the very rows of the plain page, either way, NULLs and ties included', async () => {
    const views: ViewState[] = [
      { filters: [], sort: { column: 'price', descending: false }, page: 0 },
      { filters: [], sort: { column: 'price', descending: true }, page: 1 },
      { filters: [], sort: { column: 'day', descending: false }, page: 1 },
      { filters: [{ column: 'we"ird', kind: 'not-null' }], sort: { column: 'day', descending: true }, page: 1 },
      // Past the last row: no boundary, the plain page (empty).
      { filters: [], sort: { column: 'day', descending: false }, page: 5 },
    ];
    for (const view of views) {
      const boundary = (await rows(boundarySql(TABLE, view)!))[0]?.[0];
      const bounded = boundedPageSql(TABLE, view, KEY, boundary === undefined || boundary === null ? boundary : String(boundary));
      if (view.page < 2 && view.sort?.column === 'price') expect(bounded).toContain(view.sort.descending ? '"price" >=' : '"price" <=');
      expect(await rows(bounded), bounded).toEqual(await rows(pageSql(TABLE, view, KEY)));
    }
  });

  it('lists a facet’s values with their counts, most first, leaving out filters on its own column', async () => {
    const filters: Filter[] = [
      { column: 'we"ird', kind: 'equals', value: "O'Brien 1" },
      { column: 'price', kind: 'range', to: '3' },
    ];
    const sql = facetSql(TABLE, 'we"ird', filters);
    expect(sql).not.toContain("'O''Brien 1'");
    const facet = await rows(sql);
    expect(facet.length).toBe(6);
    expect(Number(facet[0]![1])).toBeGreaterThanOrEqual(Number(facet[1]![1]));
    // A click on a value, or on no value, filters by it: the count is the facet's.
    for (const [value, counted] of facet) {
      const filter = facetFilter('we"ird', value as string | null);
      expect(await count([filters[1]!, filter]), String(value)).toBe(Number(counted));
    }
  });

  it('bounds a sorted page only by a column whose text casts back to its value', () => {
    expect(boundable({ name: 'price', type: 'DECIMAL(15,2)' })).toBe(true);
    expect(boundable({ name: 'at', type: 'TIMESTAMP' })).toBe(true);
    expect(boundable({ name: 'ids', type: 'VARCHAR[]' })).toBe(false);
  });

  it('offers the filters a column’s type takes', () => {
    expect(kindsFor({ name: 'price', type: 'DECIMAL(12,2)' })).toEqual(['equals', 'range', 'contains', 'null', 'not-null']);
    expect(kindsFor({ name: 'name', type: 'VARCHAR' })).toEqual(['equals', 'contains', 'null', 'not-null']);
    expect(kindsFor({ name: 'ids', type: 'VARCHAR[]' })).toEqual(['contains', 'null', 'not-null']);
  });
});
