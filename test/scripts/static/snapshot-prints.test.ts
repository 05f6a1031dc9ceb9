import { describe, expect, it } from 'vitest';
import { quoteIdentifier } from '../../../core/db/duckdb.ts';
import { rowOrder } from '../../../core/row-order.ts';
import { tableSource, tableFiles } from '../../../core/snapshot/read.ts';
import { datasets } from '../../../datasets/index.ts';
import { SnapshotPrints } from '../../../scripts/static/snapshot-prints.ts';
import { resourceIn } from '../../../scripts/static/snapshot-rows.ts';
import { tinySnapshot, withDatabase } from '../../fixtures/tiny.ts';

describe('row prints of a snapshot, as the static build reads them', () => {
  it('places every row of every resource where the row order puts it, with or without a sort', async () => {
    const snapshot = await tinySnapshot();
    await withDatabase(async (db) => {
      const prints = new SnapshotPrints(db, snapshot);
      const files = { one: 0, more: 0 };
      for (const dataset of datasets)
        for (const resource of Object.keys(dataset.resources)) {
          const table = dataset.tables[resourceIn(dataset, resource).table]!;
          const key = table.key?.[0] ?? rowOrder(table)[0]!;
          // Series are printed by groups of rows, not rows.
          if (!table.key) continue;
          const parts = tableFiles(snapshot, dataset.name, table.name);
          files[parts.length === 1 ? 'one' : 'more']++;
          const { table: printed } = await prints.rowPrintsOf(dataset, resource, key);
          const order = rowOrder(table).map(quoteIdentifier).join(', ');
          const placed = await db.rows<{ k: string; rn: bigint }>(`SELECT k, rn FROM ${printed} ORDER BY rn`);
          const sorted = await db.rows<{ k: string; rn: bigint }>(
            `SELECT CAST(${quoteIdentifier(key)} AS VARCHAR) AS k, row_number() OVER (ORDER BY ${order}) - 1 AS rn FROM ${tableSource(parts)} ORDER BY rn`,
          );
          expect(placed, `${dataset.name} ${resource}`).toEqual(sorted);
        }
      // Tables of one file and of many were placed (by their row numbers, or by a sort where the files are not in order).
      expect(files.one).toBeGreaterThan(0);
      expect(files.more).toBeGreaterThan(0);
    });
  });
});
