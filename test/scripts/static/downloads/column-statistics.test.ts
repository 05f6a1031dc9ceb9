import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tableStatisticsSchema, type TableStatistics } from '../../../../core/column-statistics.ts';
import { CATALOGUE, columnStatisticsPath } from '../../../../core/published-tree.ts';
import { datasets } from '../../../../datasets/index.ts';
import { buildStatic } from '../../../../scripts/static/build-static.ts';
import { python, runPython } from '../../../fixtures/python.ts';
import { tempDir, tinyDataDir } from '../../../fixtures/tiny.ts';
import { readJson } from '../../../fixtures/tree-parity.ts';

type Catalogue = { tables: { dataset: string; table: string; rows: number; files: { url: string; csv: { url: string } }[] }[] };
type Independent = Record<
  string,
  {
    rows: number;
    columns: Record<
      string,
      { nulls: number; distinct: number; min?: string | null; max?: string | null; top?: [string, number][]; histogram?: number[]; contiguous?: boolean }
    >;
  }
>;

/**
 * Every table's column statistics in the tiny city's tree, checked against what pyarrow and pandas
 * make of the same downloads on their own (test/fixtures/python/column_statistics.py): nulls,
 * distinct values, least and greatest as the CSV twin writes them, the commonest values, and how
 * many values each bin holds. CI sets the Python up (.ci/run); elsewhere these need it.
 */
describe.skipIf(!python && !process.env.CI)('column statistics, against pandas over the downloads', () => {
  let tree: string;
  let catalogue: Catalogue;
  let independent: Independent;
  const published = new Map<string, TableStatistics>();

  beforeAll(async () => {
    const out = join(await tempDir('column-statistics'), 'dist');
    await buildStatic({ dataDir: tinyDataDir(), out, datasets });
    tree = await realpath(out);
    catalogue = await readJson(tree, `/${CATALOGUE}`);
    const asked: Record<string, { files: [string, string][]; statistics: string }> = {};
    for (const { dataset, table, files } of catalogue.tables) {
      const path = join(tree, columnStatisticsPath(dataset, table));
      published.set(`${dataset}/${table}`, tableStatisticsSchema.parse(await readJson(tree, `/${columnStatisticsPath(dataset, table)}`)));
      asked[`${dataset}/${table}`] = { files: files.map((file) => [join(tree, file.url), join(tree, file.csv.url)]), statistics: path };
    }
    independent = await runPython<Independent>('column_statistics.py', JSON.stringify(asked));
  }, 300_000);

  it('publishes a file per table, with its rows and every column in order', () => {
    expect([...published.keys()]).toEqual(catalogue.tables.map((t) => `${t.dataset}/${t.table}`));
    for (const { dataset, table, rows } of catalogue.tables) {
      const statistics = published.get(`${dataset}/${table}`)!;
      const declared = datasets.find((d) => d.name === dataset)!.tables[table]!;
      expect(statistics.rows).toBe(rows);
      expect(statistics.columns.map((c) => [c.name, c.type])).toEqual(Object.entries(declared.columns).map(([name, c]) => [name, c.sqlType]));
    }
  });

  it('describes numbers, days and instants by a histogram; texts, codes and booleans by their commonest values; JSON, lists and structured text by counts alone', () => {
    for (const { dataset, table } of catalogue.tables) {
      const declared = datasets.find((d) => d.name === dataset)!.tables[table]!;
      for (const column of published.get(`${dataset}/${table}`)!.columns) {
        const { kind, meaning } = declared.columns[column.name]!;
        const expected =
          meaning === 'structured-text' || ['json', 'list', 'struct-list'].includes(kind)
            ? 'counts'
            : meaning === 'code' || kind === 'varchar' || kind === 'boolean'
              ? 'top'
              : 'histogram';
        const label = `${dataset}/${table}.${column.name}`;
        expect({ histogram: 'histogram' in column, top: 'top' in column, min: 'min' in column }, label).toEqual({
          histogram: expected === 'histogram',
          top: expected === 'top',
          min: expected !== 'counts',
        });
      }
    }
    // The sample city has each kind: the register's codes among them.
    const transactions = published.get('rcn/transactions')!.columns;
    expect(transactions.find((c) => c.name === 'market_type_code')!.top!.length).toBeGreaterThan(1);
    expect(transactions.find((c) => c.name === 'upstream_json')).not.toHaveProperty('top');
  });

  it('counts nulls and distinct values as pandas does: exactly where it says so, else within a few percent', () => {
    for (const [key, statistics] of published) {
      for (const column of statistics.columns) {
        const own = independent[key]!.columns[column.name]!;
        const label = `${key}.${column.name}`;
        expect(column.nulls, label).toBe(own.nulls);
        if (column.distinctIsApproximate) expect(Math.abs(column.distinct - own.distinct), label).toBeLessThanOrEqual(Math.max(2, own.distinct * 0.05));
        else expect(column.distinct, label).toBe(own.distinct);
      }
    }
  });

  it('gives the least and greatest value and the commonest ten as the CSV twin writes them, ties by value', () => {
    let tops = 0;
    for (const [key, statistics] of published) {
      for (const column of statistics.columns) {
        const own = independent[key]!.columns[column.name]!;
        const label = `${key}.${column.name}`;
        if ('min' in column) expect({ min: column.min, max: column.max }, label).toEqual({ min: own.min, max: own.max });
        if (column.top) {
          expect(
            column.top.map((t) => [t.value, t.count]),
            label,
          ).toEqual(own.top);
          tops++;
        }
      }
    }
    expect(tops).toBeGreaterThan(20);
    // Decimals keep their scale, days and instants their CSV form.
    const price = published.get('rcn/transactions')!.columns.find((c) => c.name === 'gross_price')!;
    expect(price.min).toMatch(/^\d+\.\d{2}$/);
    expect(published.get('citybike/rides')!.columns.find((c) => c.name === 'started_at')!.min).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('bins every non-null value once, in contiguous bins of one round width, at most 20 and no more than the distinct values', () => {
    let histograms = 0;
    for (const [key, statistics] of published) {
      for (const column of statistics.columns) {
        if (!column.histogram) continue;
        const own = independent[key]!.columns[column.name]!;
        const label = `${key}.${column.name}`;
        const counts = column.histogram.map((bin) => bin.count);
        expect(
          counts.reduce((a, b) => a + b, 0),
          label,
        ).toBe(statistics.rows - column.nulls);
        if (!column.histogram.length) continue;
        expect(counts, label).toEqual(own.histogram);
        expect(own.contiguous, label).toBe(true);
        expect(column.histogram.length, label).toBeLessThanOrEqual(Math.min(20, Math.max(1, own.distinct)));
        // The first and last bins hold a value: empty ones lie only between.
        expect([counts[0], counts.at(-1)], label).not.toContain(0);
        histograms++;
      }
    }
    expect(histograms).toBeGreaterThan(20);
  });
});
