import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SeriesFile, SeriesFileWriter } from '../../server/series-store.ts';
import { tempDir } from '../fixtures/tiny.ts';

/** What a run of a series holds, found the slow way: every row of the series in the span, in order. */
const expected = (rows: readonly { key: string; time: number; text: string }[], key: string, from: number, to: number, toIncluded: boolean) =>
  rows.filter((row) => row.key === key && row.time >= from && (toIncluded ? row.time <= to : row.time < to)).map((row) => row.text);

/** A run's rows, each text cut at its start. */
const textsOf = (run: ReturnType<SeriesFile['run']>) =>
  Array.from({ length: run.count }, (_, i) => run.bytes.toString('utf8', run.starts[i]!, run.starts[i + 1]! - 1));

describe('a series file', () => {
  it("gives a series' rows in a span of time, its ends included or not, ties and multi-byte texts too", async () => {
    const dir = await tempDir('series-file');
    let files = 0;
    const series = fc.array(
      fc.record({
        times: fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 40 }),
        texts: fc.array(fc.string({ unit: 'binary', maxLength: 12 }), { minLength: 40, maxLength: 40 }),
      }),
      { maxLength: 5 },
    );
    await fc.assert(
      fc.asyncProperty(
        series,
        fc.array(fc.tuple(fc.integer({ min: -5, max: 60 }), fc.integer({ min: -5, max: 60 }), fc.boolean(), fc.nat(6))),
        async (made, asked) => {
          const path = join(dir, `s${files++}`);
          const writer = new SeriesFileWriter(path);
          const rows = made.flatMap(({ times, texts }, s) =>
            [...times].sort((a, b) => a - b).map((time, i) => ({ key: `series ${s} ż`, time: time * 1_000_000, text: JSON.stringify({ i, t: texts[i] }) })),
          );
          for (const row of rows) writer.add(row.key, row.time, row.text);
          writer.finish();
          const file = SeriesFile.open(path);
          try {
            for (const [a, b, toIncluded, s] of asked) {
              const key = `series ${s} ż`;
              const run = file.run(key, a * 1_000_000, b * 1_000_000, toIncluded);
              expect(textsOf(run)).toEqual(expected(rows, key, a * 1_000_000, b * 1_000_000, toIncluded));
              expect(run.bytes.length).toBe(run.starts[run.count]);
            }
          } finally {
            file.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('refuses rows that go back in time within a series, and a series that comes twice', async () => {
    const dir = await tempDir('series-file-order');
    const back = new SeriesFileWriter(join(dir, 'back'));
    back.add('a', 10, '{}');
    expect(() => back.add('a', 9, '{}')).toThrow(/after one at 10/);
    const twice = new SeriesFileWriter(join(dir, 'twice'));
    twice.add('a', 10, '{}');
    twice.add('b', 1, '{}');
    expect(() => twice.add('a', 11, '{}')).toThrow(/series a came twice/);
  });
});
