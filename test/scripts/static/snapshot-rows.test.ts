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
      const rows = await new SnapshotRows(recording(db, ways), snapshot).all(datasetNamed('bike-counter'), 'reading');
      expect(rows.length).toBeGreaterThan(100);
      expect(ways).toEqual(['json']);
    });
  });
});
