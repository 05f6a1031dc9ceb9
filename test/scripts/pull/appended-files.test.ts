import { describe, expect, it } from 'vitest';
import type { FileManifest } from '../../../core/snapshot/manifest.ts';
import { appendedFiles } from '../../../scripts/pull/pulled-snapshot.ts';

const file = (path: string, month: string): FileManifest => ({
  path,
  rows: 1,
  bytes: 1,
  sha256: path,
  partition: { year: '2025', month },
  min: null,
  max: null,
});

// October cut into three files, November one.
const october = ['rides/year=2025/month=10/part-000.parquet', 'rides/year=2025/month=10/part-001.parquet', 'rides/year=2025/month=10/part-002.parquet'].map(
  (path) => file(path, '10'),
);
const november = file('rides/year=2025/month=11/part-0.parquet', '11');
const files = [...october, november];

describe('appendedFiles', () => {
  it('links every file of a partition the pull neither wrote into nor fetched again', () => {
    const { linked, reread } = appendedFiles(files, () => undefined, () => false);
    expect(linked).toEqual(files);
    expect(reread).toEqual([]);
  });

  it('reads every file of a cut partition again when rows were fetched again in one of them', () => {
    const replaced = (f: FileManifest) => (f === october[2] ? 'started_at >= 1' : undefined);
    const { linked, reread } = appendedFiles(files, replaced, () => false);
    expect(linked).toEqual([november]);
    expect(reread).toEqual([
      { file: october[0], replaced: undefined },
      { file: october[1], replaced: undefined },
      { file: october[2], replaced: 'started_at >= 1' },
    ]);
  });

  it('reads every file of a cut partition again when the pull wrote rows into it', () => {
    const { linked, reread } = appendedFiles(files, () => undefined, (f) => f.partition.month === '10');
    expect(linked).toEqual([november]);
    expect(reread.map((r) => r.file)).toEqual(october);
  });
});
