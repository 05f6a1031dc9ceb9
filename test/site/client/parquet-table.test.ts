import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { Table } from 'apache-arrow';
import { asyncBufferFromFile, parquetMetadataAsync } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readColumns } from '../../../site/client/arrow-parts.ts';
import { readText, type CatalogueColumn } from '../../../site/client/parquet-table.ts';
import { textResult, type ArrowLike } from '../../../site/client/sql-result.ts';
import { rowsOf } from '../../fixtures/table-pages.ts';

/**
 * A row group's rows read in the browser's way (hyparquet, no DuckDB): as text for a table page's
 * first view, and as Arrow for DuckDB-WASM. The text is what the Arrow gives back, and what
 * DuckDB itself shows for the same rows, for every kind of column the published tables hold.
 */

const columns: CatalogueColumn[] = [
  { name: 'code', type: 'SMALLINT' },
  { name: 'count', type: 'INTEGER' },
  { name: 'big', type: 'BIGINT' },
  { name: 'share', type: 'DOUBLE' },
  { name: 'open', type: 'BOOLEAN' },
  { name: 'day', type: 'DATE' },
  { name: 'at', type: 'TIMESTAMPTZ' },
  { name: 'price', type: 'DECIMAL(15,2)' },
  { name: 'name', type: 'VARCHAR' },
  { name: 'tags', type: 'VARCHAR[]' },
  { name: 'outline', type: 'DOUBLE[][]' },
  { name: 'bands', type: 'STRUCT("from" DOUBLE, "to" DOUBLE, "label" VARCHAR)[]' },
  { name: 'raw', type: 'JSON' },
];

// Every value some rows' worth of each type, and NULL in every column now and then; text with
// quotes, commas and letters past ASCII; JSON as an upstream may write it (spaces, 1.50, keys in
// its own order), which a page must show as the file holds it.
const select = `SELECT
  CASE WHEN i % 7 = 0 THEN NULL ELSE (i % 300)::SMALLINT END AS code,
  CASE WHEN i % 11 = 0 THEN NULL ELSE i * 3 END::INTEGER AS count,
  CASE WHEN i % 13 = 0 THEN NULL ELSE 9007199254740993 + i END::BIGINT AS big,
  CASE WHEN i % 5 = 0 THEN NULL ELSE i / 7 END::DOUBLE AS share,
  CASE WHEN i % 17 = 0 THEN NULL ELSE i % 2 = 0 END AS open,
  CASE WHEN i % 19 = 0 THEN NULL ELSE DATE '2019-12-30' + i::INTEGER END AS day,
  CASE WHEN i % 23 = 0 THEN NULL ELSE TIMESTAMPTZ '2024-03-31 00:59:59.5+00' + to_milliseconds(i * 1234567) END AS at,
  CASE WHEN i % 29 = 0 THEN NULL ELSE (i * 1.05)::DECIMAL(15,2) END AS price,
  CASE WHEN i % 31 = 0 THEN NULL ELSE 'Łódź, ul. "Długa" ' || i END AS name,
  CASE WHEN i % 37 = 0 THEN NULL WHEN i % 3 = 0 THEN []::VARCHAR[] ELSE ['a' || i, NULL, 'żółw'] END AS tags,
  CASE WHEN i % 41 = 0 THEN NULL ELSE [[i / 3, 52.25], [21.0, -i / 9]] END AS outline,
  CASE WHEN i % 43 = 0 THEN NULL ELSE [{'from': i::DOUBLE, 'to': i + 0.5::DOUBLE, 'label': 'pasmo ' || i}] END AS bands,
  CASE WHEN i % 47 = 0 THEN NULL ELSE ('{"b": 1.50, "a": [' || i || ', "x"],  "c": null}')::JSON END AS raw
FROM range(3000) t(i)`;

describe('a row group read in the browser', () => {
  let dir: string;
  let duckdb: DuckDBConnection;
  let path: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'odsnap-parquet-table-'));
    path = join(dir, 'part-0.parquet');
    duckdb = await (await DuckDBInstance.create(':memory:')).connect();
    await duckdb.run("SET TimeZone = 'UTC'");
    // As the published files are written (core/snapshot/table-writer.ts): Zstandard, row groups of 2,048.
    await duckdb.run(`COPY (${select}) TO '${path}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 2048)`);
  });
  afterAll(async () => {
    duckdb?.closeSync();
    await rm(dir, { recursive: true, force: true });
  });

  async function read(rowStart: number, rowEnd: number) {
    const file = await asyncBufferFromFile(path);
    const metadata = await parquetMetadataAsync(file);
    expect(metadata.row_groups[0]!.num_rows).toBe(2048n);
    return { file, metadata, text: await readText(file, metadata, rowStart, rowEnd, columns) };
  }

  it('writes each value as its Arrow vector reads back, what DuckDB-WASM shows', async () => {
    const { file, metadata, text } = await read(100, 600);
    const vectors = await readColumns(file, metadata, 100, 600, columns);
    const arrow = textResult(new Table(Object.fromEntries(columns.map((column) => [column.name, vectors.get(column.name)!]))) as unknown as ArrowLike);
    expect(text.rowCount).toBe(500);
    expect(text.columns).toEqual(columns.map((column) => column.name));
    expect(text.rows()).toEqual(arrow.rows());
  });

  it('shows the rows as DuckDB does, JSON as the file holds it', async () => {
    const { text } = await read(100, 600);
    const expected = await rowsOf(duckdb, `SELECT * FROM '${path}' LIMIT 500 OFFSET 100`);
    const shown = text.rows().map((row) => row.map((value) => value ?? 'NULL'));
    expect(shown).toEqual(expected);
    expect(shown[1]![columns.findIndex((column) => column.name === 'raw')]).toBe('{"b": 1.50, "a": [101, "x"],  "c": null}');
  });

  it('reads rows at the end of a row group and a slice of one', async () => {
    const { text } = await read(2040, 2048);
    expect(text.rows(2, 4)).toEqual(text.rows().slice(2, 4));
    const codes = Array.from({ length: 8 }, (_, k) => ((2040 + k) % 7 === 0 ? null : String((2040 + k) % 300)));
    expect(text.rows().map((row) => row[0])).toEqual(codes);
  });
});
