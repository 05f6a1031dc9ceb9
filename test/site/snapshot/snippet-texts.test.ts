import { describe, expect, it } from 'vitest';
import { text } from '../../../core/text.ts';
import { tableSnippets } from '../../../site/snapshot/download-snippets.ts';
import { timeCoverage } from '../../../core/published-tree.ts';
import type { CatalogueTable } from '../../../site/snapshot/tree-snapshot.ts';

/** The downloads page's snippets and coverage as text, without a build: the URLs they name and the time ranges they read. */

describe('downloads', () => {
  const table = (files: number): CatalogueTable => ({
    dataset: 'citybike',
    table: 'rides',
    sqlName: 'citybike_rides',
    description: text('Rides', 'Przejazdy'),
    rows: files,
    timeColumn: 'started_at',
    files: Array.from({ length: files }, (_, i) => ({
      url: `/downloads/citybike/rides/n=${i}/part-0.parquet`,
      rows: 1,
      bytes: 10,
      sha256: 'a'.repeat(64),
      partition: { n: String(i) },
      min: `2024-01-0${(i % 9) + 1}T10:00:00.000Z`,
      max: `2024-02-0${(i % 9) + 1}`,
      csv: { url: `/downloads/csv/citybike/rides/n=${i}/part-0.csv.gz`, bytes: 20, sha256: 'b'.repeat(64) },
    })),
  });

  it('give snippets with absolute URLs, listing the first files of a large table and pointing at the catalogue', () => {
    const context = { origin: 'http://localhost:4321', server: 'http://localhost:4321', catalogueUrl: '/downloads/catalogue.json' };
    const small = tableSnippets(table(2), context);
    expect(small.duckdb).toContain(
      "read_parquet([\n  'http://localhost:4321/downloads/citybike/rides/n=0/part-0.parquet',\n  'http://localhost:4321/downloads/citybike/rides/n=1/part-0.parquet'\n]",
    );
    expect(small.cli).toContain('odsnap pull --from http://localhost:4321 --datasets citybike');
    expect(small.checksums.split('\n')[0]).toBe(`${'a'.repeat(64)}  citybike/rides/n=0/part-0.parquet`);
    const large = tableSnippets(table(30), context);
    expect(large.pandas).toContain('the first 24 of 30 files; http://localhost:4321/downloads/catalogue.json lists them all');
    expect(large.pandas.match(/part-0\.parquet/g)).toHaveLength(24);
    expect(large.csv).toContain('the first 24 of 30 files');
    expect(large.csv.match(/'?"http:\/\/localhost:4321\/downloads\/csv\/citybike\/rides\/n=\d+\/part-0\.csv\.gz"/g)).toHaveLength(24);
  });

  it('take the coverage in time from the files’ ranges', () => {
    expect(timeCoverage([table(3)])).toEqual({ min: '2024-01-01T10:00:00.000Z', max: '2024-02-03' });
    expect(timeCoverage([])).toBeUndefined();
  });
});
