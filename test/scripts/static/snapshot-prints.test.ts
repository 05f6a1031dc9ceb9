import { describe, expect, it } from 'vitest';
import { quoteIdentifier } from '../../../core/db/duckdb.ts';
import { rowOrder } from '../../../core/row-order.ts';
import { tableSource, tableFiles } from '../../../core/snapshot/read.ts';
import { datasets } from '../../../datasets/index.ts';
import { SnapshotPrints } from '../../../scripts/static/snapshot-prints.ts';
import { resourceIn, SnapshotRows } from '../../../scripts/static/snapshot-rows.ts';
import { ROW_BUCKET, ROW_PRINT } from '../../../datasets/answers/static-files.ts';
import { tinySnapshot, withDatabase } from '../../fixtures/tiny.ts';

describe('row prints of a snapshot, as the static build reads them', () => {
  it('places every row of every resource where the row order puts it, and prints rows streamed with their prints alike', async () => {
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
          const order = rowOrder(table).map(quoteIdentifier).join(', ');
          const placed = await prints.rowPrints(dataset, resource, key);
          const sorted = await db.rows<{ k: string }>(`SELECT CAST(${quoteIdentifier(key)} AS VARCHAR) AS k FROM ${tableSource(parts)} ORDER BY ${order}`);
          expect(
            placed.map((row) => row.key),
            `${dataset.name} ${resource}`,
          ).toEqual(sorted.map((row) => row.k));
          // Rows streamed with their prints are printed as the prints table prints them.
          const streamed: string[] = [];
          for await (const batch of new SnapshotRows(db, snapshot).stream(
            dataset,
            resource,
            {},
            { withPrints: { prints: await prints.rowPrintsOf(dataset, resource, key) } },
          ))
            for (const row of batch) streamed.push(`${BigInt(row[ROW_PRINT] as string).toString(36)} ${row[ROW_BUCKET]}`);
          expect(streamed.sort()).toEqual(placed.map((row) => `${row.print} ${row.bucket}`).sort());
        }
      // Tables of one file and of many were placed (by their row numbers, or by a sort where the files are not in order).
      expect(files.one).toBeGreaterThan(0);
      expect(files.more).toBeGreaterThan(0);
    });
  });
});
