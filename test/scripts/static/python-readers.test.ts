import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../../core/published-tree.ts';
import { datasets } from '../../../datasets/index.ts';
import { buildStatic } from '../../../scripts/static/build-static.ts';
import { python, runPython } from '../../fixtures/python.ts';
import { tempDir, tinyDataDir, tinySnapshot } from '../../fixtures/tiny.ts';
import { readJson } from '../../fixtures/tree-parity.ts';

type Read = { rows: number; columns: string[]; agree: Record<string, boolean | string> } | { error: string };

/**
 * Every table folder, of the downloads and of a snapshot, read as users of Python read a folder
 * of Parquet files: pandas, pyarrow, polars and DuckDB, each by its default directory call and with
 * hive partitioning on. CI sets the Python up (.ci/run); elsewhere these need it.
 */
describe.skipIf(!python && !process.env.CI)('the Parquet folders, read by Python tools', () => {
  let tree: string;
  let catalogue: { tables: { dataset: string; table: string; rows: number; partitionBy: { name: string; column: string; part?: string }[] }[] };
  beforeAll(async () => {
    const out = join(await tempDir('python'), 'dist');
    await buildStatic({ dataDir: tinyDataDir(), out, datasets });
    tree = await realpath(out);
    catalogue = await readJson(tree, `/${CATALOGUE}`);
  });

  it.each([
    ['downloads', 'of the tree'],
    ['snapshot', 'of the snapshot'],
  ])('read whole, with the catalogue’s rows and partitions that agree with their columns: %s', async (where) => {
    const root = where === 'downloads' ? join(tree, 'downloads') : (await tinySnapshot()).dir;
    const folders = catalogue.tables.map((t) => join(root, t.dataset, t.table));
    const partitions = Object.fromEntries(catalogue.tables.map((t) => [`${t.dataset}/${t.table}`, t.partitionBy]));
    const results = await runPython<Record<string, Record<string, Read>>>('read_tables.py', JSON.stringify(partitions), ...folders);
    let checked = 0;
    for (const table of catalogue.tables) {
      for (const [reader, read] of Object.entries(results[join(root, table.dataset, table.table)]!)) {
        const label = `${table.dataset}/${table.table} by ${reader}`;
        expect('error' in read ? read.error : 'read', label).toBe('read');
        if ('error' in read) continue;
        expect(read.rows, label).toBe(table.rows);
        // Where the reader adds the partitions (as every one here does by default), they agree with the columns they come from.
        for (const partition of table.partitionBy.filter((p) => !p.part)) expect(read.agree[partition.name], `${label}: ${partition.name}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBe(catalogue.tables.length * 7);
  });
});
