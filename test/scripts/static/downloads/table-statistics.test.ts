import { readdir, readFile, realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../../../core/calendar.ts';
import { tableStatisticsSchema, type TableStatistics } from '../../../../core/column-statistics.ts';
import { CATALOGUE, columnStatisticsPath, DATAPACKAGE } from '../../../../core/published-tree.ts';
import { openSnapshot } from '../../../../core/snapshot/read.ts';
import { datasets } from '../../../../datasets/index.ts';
import { defaultUntil } from '../../../../datasets/vocabulary/sample.ts';
import { generateSample } from '../../../../scripts/sample/generate.ts';
import { buildStatic } from '../../../../scripts/static/build-static.ts';
import { tempDir } from '../../../fixtures/tiny.ts';

type Catalogue = { tables: { dataset: string; table: string; statistics: string; files: { url: string }[] }[] };
type DataPackage = {
  resources: { path: string; columnStatistics?: string; schema: { fields: { name: string; example?: string; constraints?: Record<string, unknown> }[] } }[];
};

/** Each table's statistics in a tree: linked from the downloads' descriptions, and kept from one build to the next while the table's files are. */
describe('the tables’ column statistics in the tree', () => {
  let dataDir: string;
  let out: string;
  const steps: string[] = [];
  const build = () => buildStatic({ dataDir, out, datasets, onStep: (text) => steps.push(text) });
  const read = async (path: string) => JSON.parse(await readFile(join(await realpath(out), path), 'utf8')) as unknown;
  const statisticsOf = async () =>
    new Map<string, TableStatistics>(
      await Promise.all(
        datasets.flatMap((d) =>
          Object.keys(d.tables).map(async (t) => [`${d.name}/${t}`, tableStatisticsSchema.parse(await read(columnStatisticsPath(d.name, t)))] as const),
        ),
      ),
    );
  /** The sha256 of each table's files in the current snapshot. */
  const filesOf = async () => {
    const { manifest } = await openSnapshot(dataDir);
    return new Map(
      Object.entries(manifest.datasets).flatMap(([d, { tables }]) =>
        Object.entries(tables).map(([t, e]) => [`${d}/${t}`, e.files.map((f) => f.sha256).join()]),
      ),
    );
  };

  beforeAll(async () => {
    const dir = await tempDir('table-statistics');
    dataDir = join(dir, 'data');
    out = join(dir, 'dist');
    await generateSample({ dataDir, datasets, settings: { scale: 'tiny', seed: 1, until: defaultUntil } });
    await build();
  }, 300_000);

  it('links each table’s statistics from its catalogue entry, in the catalogue’s URL style', async () => {
    const catalogue = (await read(CATALOGUE)) as Catalogue;
    expect(catalogue.tables.length).toBe(datasets.flatMap((d) => Object.keys(d.tables)).length);
    for (const table of catalogue.tables) {
      expect(table.statistics).toBe(`/${columnStatisticsPath(table.dataset, table.table)}`);
      // Like the files' URLs: root-relative, the file beside the table's folder.
      expect(table.statistics.replace(/\.stats\.json$/, '/')).toBe(table.files[0]!.url.slice(0, table.statistics.length - '.stats.json'.length + 1));
      expect(tableStatisticsSchema.parse(await read(table.statistics)).table).toBe(table.table);
    }
  });

  it('links them from every Data Package resource of the table’s files, and gives fields an example from them, never constraints', async () => {
    const catalogue = (await read(CATALOGUE)) as Catalogue;
    const statistics = await statisticsOf();
    const { resources } = (await read(DATAPACKAGE)) as DataPackage;
    for (const table of catalogue.tables) {
      const own = resources.filter(
        (r) => r.path.startsWith(`downloads/${table.dataset}/${table.table}/`) || r.path.startsWith(`downloads/csv/${table.dataset}/${table.table}/`),
      );
      expect(own.length).toBe(table.files.length * 2);
      const described = statistics.get(`${table.dataset}/${table.table}`)!;
      for (const resource of own) {
        // Relative to the descriptor, as `path` is.
        expect(resource.columnStatistics).toBe(columnStatisticsPath(table.dataset, table.table));
        for (const field of resource.schema.fields) {
          const column = described.columns.find((c) => c.name === field.name)!;
          expect(field.example, `${resource.path} ${field.name}`).toBe(column.top?.[0]?.value ?? column.min ?? undefined);
          expect(Object.keys(field.constraints ?? {})).toEqual(['required']);
        }
      }
    }
    const transactions = resources.find((r) => r.path.startsWith('downloads/rcn/transactions/'))!.schema.fields;
    expect(transactions.find((f) => f.name === 'currency')!.example).toBe('PLN');
    expect(transactions.find((f) => f.name === 'upstream_json')).not.toHaveProperty('example');
  });

  it('keeps the statistics of the tables a pull left unchanged, working out only the changed tables’ again', async () => {
    const filesBefore = await filesOf();
    const before = await statisticsOf();
    await generateSample({ dataDir, datasets, settings: { scale: 'tiny', seed: 1, until: addDays(defaultUntil, 1) } });
    steps.length = 0;
    await build();
    const filesAfter = await filesOf();
    const after = await statisticsOf();
    const unchanged = [...filesAfter.keys()].filter((key) => filesAfter.get(key) === filesBefore.get(key));
    const changed = filesAfter.size - unchanged.length;
    // A day more of readings and rides: some tables, far from all.
    expect(changed).toBeGreaterThan(0);
    expect(unchanged.length).toBeGreaterThan(5);
    expect(steps.find((step) => step.startsWith('column statistics:'))).toMatch(
      new RegExp(`^column statistics: ${changed} tables? described in [\\d.]+ s, ${unchanged.length} kept from earlier builds$`),
    );
    const snapshot = (await openSnapshot(dataDir)).id;
    for (const key of unchanged) expect(after.get(key), key).toEqual({ ...before.get(key)!, snapshot });

    // The cache beside the trees holds the statistics of the current tables only.
    const cached = await readdir(join(dirname(out), '.dist-trees', 'statistics'));
    expect(cached.length).toBe(filesAfter.size);
  });
});
