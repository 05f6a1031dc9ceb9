import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createViews } from '../../core/snapshot/read.ts';
import { datasets } from '../../datasets/index.ts';
import { writeSeriesFiles } from '../../server/series-files.ts';
import { keptSeries } from '../../server/storage-plan.ts';
import { tempDir, tinySnapshot, withDatabase } from '../fixtures/tiny.ts';

/**
 * Series files are written from statements that each sort a group of whole days of whole series
 * (server/series-files.ts), so that the sort's memory does not grow with the table. However the
 * rows are grouped, the files must be the same, byte for byte but for the build's random marks.
 */

const tables = datasets.flatMap((dataset) =>
  Object.values(dataset.tables)
    .filter((table) => keptSeries(dataset, table).length)
    .map((table) => ({ dataset, table })),
);

/** Every file written, by name, with the series' random nonce replaced by a fixed one. */
async function written(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const name of (await readdir(dir)).sort()) {
    if (!name.endsWith('.series')) continue;
    const nonce = (JSON.parse(await readFile(join(dir, name), 'utf8')) as { about: { nonce: string } }).about.nonce;
    const base = name.slice(0, -'.series'.length);
    for (const extension of ['.series', '.bodies', '.rows'])
      files.set(base + extension, (await readFile(join(dir, base + extension))).toString('latin1').replaceAll(nonce, 'NONCE'));
  }
  return files;
}

describe('series files', () => {
  it.each(tables.map(({ dataset, table }) => [`${dataset.name} ${table.name}`, dataset, table] as const))(
    'of %s are the same whether one statement sorts every row or each sorts a few days',
    async (_, dataset, table) => {
      const snapshot = await tinySnapshot();
      const [whole, grouped] = [await tempDir('series-whole'), await tempDir('series-grouped')];
      await withDatabase(async (db) => {
        await createViews(db, snapshot, datasets);
        await writeSeriesFiles(db.connection, dataset, table, '{base_url:T}', (name) => join(whole, name), Number.MAX_SAFE_INTEGER);
        await writeSeriesFiles(db.connection, dataset, table, '{base_url:T}', (name) => join(grouped, name), 300);
      });
      const [a, b] = [await written(whole), await written(grouped)];
      expect(a.size).toBeGreaterThan(0);
      expect([...b.keys()]).toEqual([...a.keys()]);
      for (const [name, content] of a) expect(b.get(name) === content, name).toBe(true);
    },
  );
});
