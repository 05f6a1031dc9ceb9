import { join } from 'node:path';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { describe, expect, it } from 'vitest';
import { datasets } from '../../../datasets/index.ts';
import { readList, rowDecoder } from '../../../core/db/columns.ts';
import { quoteString } from '../../../core/db/duckdb.ts';
import { fromHyparquet } from '../../fixtures/hyparquet.ts';
import { tinySnapshot, withDatabase } from '../../fixtures/tiny.ts';

describe('snapshot Parquet files', () => {
  it('read back the same in hyparquet as in DuckDB, file by file', async () => {
    const snapshot = await tinySnapshot();
    let compared = 0;
    await withDatabase(async (db) => {
      for (const dataset of datasets) {
        for (const table of Object.values(dataset.tables)) {
          for (const file of snapshot.manifest.datasets[dataset.name]!.tables[table.name]!.files) {
            const path = join(snapshot.dir, file.path);
            const duck = (await db.rows(`SELECT ${readList(table.columns)} FROM read_parquet(${quoteString(path)})`)).map(rowDecoder(table.columns));
            const hyp = (await parquetReadObjects({ file: await asyncBufferFromFile(path), compressors })).map((row) =>
              Object.fromEntries(Object.entries(table.columns).map(([name, column]) => [name, fromHyparquet(row[name], column)])),
            );
            expect(hyp, file.path).toEqual(duck);
            expect(hyp).toHaveLength(file.rows);
            compared += hyp.length;
          }
        }
      }
    });
    expect(compared).toBe(
      Object.values(snapshot.manifest.datasets)
        .flatMap((d) => Object.values(d.tables))
        .reduce((n, t) => n + t.rows, 0),
    );
  });
});
