import { describe, expect, it } from 'vitest';
import type { Dataset } from '../../../datasets/vocabulary/dataset.ts';
import { datasets } from '../../../datasets/index.ts';
import { buildStatic } from '../../../scripts/static/build-static.ts';
import { assertShape, shapeMismatch } from '../../../core/snapshot/read.ts';
import { ServedSnapshot } from '../../../server/served-snapshot.ts';
import { tempDir, tinyDataDir, tinySnapshot } from '../../fixtures/tiny.ts';

/** The data sets as another version of odsnap might declare them: `change` applied to rcn's properties table. */
function withProperties(change: (table: Dataset['tables'][string]) => Dataset['tables'][string]): Dataset[] {
  return datasets.map((dataset) =>
    dataset.name === 'rcn' ? { ...dataset, tables: { ...dataset.tables, properties: change(dataset.tables.properties!) } } : dataset,
  );
}

describe('a snapshot written by another version of odsnap', () => {
  it('has the shape its own version declares', async () => {
    expect(shapeMismatch(await tinySnapshot(), datasets)).toBeUndefined();
  });

  it('is told apart by a column more, a column fewer, or another row order, each named', async () => {
    const snapshot = await tinySnapshot();
    const fewer = withProperties((table) => {
      const { first_document_date: _, ...columns } = table.columns;
      return { ...table, columns: columns as typeof table.columns };
    });
    expect(shapeMismatch(snapshot, fewer)).toBe('rcn/properties has other columns (not declared first_document_date DATE)');
    const more = withProperties((table) => ({
      ...table,
      columns: { ...table.columns, sold_twice: { ...table.columns.first_document_date!, sqlType: 'BOOLEAN' } },
    }));
    expect(shapeMismatch(snapshot, more)).toBe('rcn/properties has other columns (missing sold_twice BOOLEAN)');
    const byId = withProperties((table) => ({ ...table, sortBy: ['property_gml_id'] }));
    expect(shapeMismatch(snapshot, byId)).toBe('rcn/properties is sorted by list_position, first_document_date, property_gml_id, not property_gml_id');
  });

  it('is refused by the static build and the server with the reason and the remedy', async () => {
    const snapshot = await tinySnapshot();
    const byId = withProperties((table) => ({ ...table, sortBy: ['property_gml_id'] }));
    const refusal = /was written by another version of odsnap: rcn\/properties is sorted by .*Make a new one with "odsnap pull"/;
    expect(() => assertShape(snapshot, byId)).toThrow(refusal);
    await expect(ServedSnapshot.open(snapshot, byId)).rejects.toThrow(refusal);
    await expect(buildStatic({ dataDir: tinyDataDir(), out: `${await tempDir('shape')}/dist`, datasets: byId })).rejects.toThrow(refusal);
  });
});
