import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { datasets } from '../../../datasets/index.ts';
import type { Database } from '../../../core/db/duckdb.ts';
import { SnapshotRows } from '../../../scripts/static/snapshot-rows.ts';
import { tinySnapshot, withDatabase } from '../../fixtures/tiny.ts';

/** `db`, noting in `ways` each query for rows and how each stream's rows cross from DuckDB. */
const recording = (db: Database, ways: string[]): Database => ({
  ...db,
  rows: (sql, params) => (ways.push('query'), db.rows(sql, params)),
  stream: (sql, params) => (ways.push('values'), db.stream(sql, params)),
  streamJson: (sql, params) => (ways.push('json'), db.streamJson(sql, params)),
});

const datasetNamed = (name: string) => datasets.find((dataset) => dataset.name === name)!;

describe('rows of a snapshot, as the static build reads them', () => {
  it('reads series of numbers and repeated texts as values, the same rows their JSON gives', async () => {
    const snapshot = await tinySnapshot();
    await withDatabase(async (db) => {
      const ways: string[] = [];
      const asValues = new SnapshotRows(recording(db, ways), snapshot, 0);
      const asJson = new SnapshotRows(db, snapshot, Infinity);
      for (const [dataset, resource] of [
        ['air-quality', 'reading'],
        ['bike-counter', 'reading'],
        ['citybike', 'ride'],
      ] as const) {
        const rows = await asValues.all(datasetNamed(dataset), resource);
        expect(ways.at(-1), `${dataset} ${resource}`).toBe('values');
        expect(rows.length).toBeGreaterThan(100);
        const json = await asJson.all(datasetNamed(dataset), resource);
        expect(rows.length).toBe(json.length);
        // The first row that differs, if any (a diff of the whole would take minutes).
        const differs = rows.findIndex((row, i) => !isDeepStrictEqual(row, json[i]));
        expect(differs === -1 ? undefined : { at: differs, values: rows[differs], json: json[differs] }).toBeUndefined();
      }
      // A register's rows hold lists and texts of their own: each comes as one JSON text.
      await asValues.all(datasetNamed('rcn'), 'transaction');
      expect(ways.at(-1)).toBe('json');
    });
  });

  it('reads small streams as JSON, without looking for repeated texts first', async () => {
    const snapshot = await tinySnapshot();
    await withDatabase(async (db) => {
      const ways: string[] = [];
      const asked: string[] = [];
      const rows = await new SnapshotRows(recording({ ...db, rows: (sql, params) => (asked.push(sql), db.rows(sql, params)) }, ways), snapshot).all(
        datasetNamed('bike-counter'),
        'reading',
      );
      expect(rows.length).toBeGreaterThan(100);
      expect(ways.filter((way) => way !== 'query')).toEqual(['json']);
      // The only query before it asks whether the files are in order (see stored-order.ts).
      expect(asked.filter((sql) => sql.includes('approx_count_distinct') || sql.includes('list(DISTINCT'))).toEqual([]);
    });
  });

  it('reads a window of rows as the rows at those places, those in stored order without a sort or a LIMIT that would hold them all', async () => {
    const snapshot = await tinySnapshot();
    await withDatabase(async (db) => {
      const statements: string[] = [];
      const rows = new SnapshotRows({ ...db, streamJson: (sql, params) => (statements.push(sql), db.streamJson(sql, params)) }, snapshot, Infinity);
      // Properties are stored in list order, in one file; transactions in files by year, which
      // hold them in list order one after another, so they need no sort either; read by id, they do.
      for (const [resource, order, sorted] of [
        ['propertySummary', undefined, false],
        ['transaction', undefined, false],
        ['transaction', ['transaction_gml_id'], true],
      ] as const) {
        const read = async (window?: { offset: number; limit: number }) => {
          const all: Record<string, unknown>[] = [];
          for await (const batch of rows.stream(datasetNamed('rcn'), resource, {}, { window, order })) all.push(...batch);
          return all;
        };
        statements.length = 0;
        const whole = await read();
        expect(whole.length).toBeGreaterThan(150);
        expect(statements.join('').includes(' ORDER BY '), `${resource} sorted`).toBe(sorted);
        for (const window of [
          { offset: 0, limit: whole.length },
          { offset: 5, limit: 10 },
          { offset: whole.length - 7, limit: 100 },
          { offset: 3, limit: 0 },
        ]) {
          statements.length = 0;
          expect(await read(window), `${resource} ${JSON.stringify(window)}`).toEqual(whole.slice(window.offset, window.offset + window.limit));
          if (window.limit) expect(statements.join('').includes(' LIMIT '), resource).toBe(sorted);
        }
      }
    });
  });
});
