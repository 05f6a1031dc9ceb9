import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compareKeys } from '../../../core/row-order.ts';
import { sortStagedRows } from '../../../core/snapshot/staged-rows.ts';

let dir: string;
beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'odsnap-staged-'))));
afterEach(() => rm(dir, { recursive: true, force: true }));

const rows = Array.from({ length: 2000 }, (_, i) => ({
  at: (i * 7919) % 500,
  name: `zone ${(i * 31) % 7} – ${'ż'.repeat(i % 3)}`,
  payload: { n: i, text: 'x'.repeat(i % 50) },
}));
const staged = rows.map((row) => JSON.stringify(row)).join('\n') + '\n';

describe('sortStagedRows', () => {
  const ways = [
    ['in memory', undefined],
    ['in runs merged from disk', 4096],
    ['in runs shorter than a line', 16],
  ] as const;

  it.each(ways)('orders lines by the given columns (%s), keeping every line intact', async (_, runBytes) => {
    const path = join(dir, 'rows.jsonl');
    await writeFile(path, staged);
    await sortStagedRows(path, ['at', 'name', 'payload'], { runBytes });
    const sorted = (await readFile(path, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(sorted).toHaveLength(rows.length);
    expect(new Set(sorted.map((r) => r.payload.n)).size).toBe(rows.length);
    for (let i = 1; i < sorted.length; i++) {
      expect(compareKeys([sorted[i - 1].at, sorted[i - 1].name], [sorted[i].at, sorted[i].name])).toBeLessThanOrEqual(0);
    }
  });

  it.each(ways)('keeps lines of equal keys in the order they were staged (%s)', async (_, runBytes) => {
    const path = join(dir, 'rows.jsonl');
    await writeFile(path, staged);
    await sortStagedRows(path, ['at'], { runBytes });
    const sorted = (await readFile(path, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    const expected = [...rows].sort((a, b) => a.at - b.at);
    expect(sorted).toEqual(expected);
    expect(await readdir(dir)).toEqual(['rows.jsonl']);
  });

  it.each(ways)('with distinct, keeps only the first line staged of each key, and says how many it dropped (%s)', async (_, runBytes) => {
    const path = join(dir, 'rows.jsonl');
    // Every row staged three times over, as a snapshot that carried rows it also fetched would.
    await writeFile(path, staged + staged + staged);
    const dropped = await sortStagedRows(path, ['at', 'name', 'payload'], { runBytes, distinct: true });
    const sorted = (await readFile(path, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(dropped).toBe(2 * rows.length);
    expect(sorted).toHaveLength(rows.length);
    expect(new Set(sorted.map((r) => r.payload.n)).size).toBe(rows.length);
    // Of rows equal in key but not whole, the first staged is the one kept.
    const keyed = (version: string) => rows.map((row) => JSON.stringify({ id: row.payload.n, version, ...row })).join('\n') + '\n';
    await writeFile(path, keyed('first') + keyed('later'));
    expect(await sortStagedRows(path, ['id'], { runBytes, distinct: true })).toBe(rows.length);
    const kept = (await readFile(path, 'utf8')).trimEnd().split('\n');
    expect(kept.map((line) => JSON.parse(line).version)).toEqual(rows.map(() => 'first'));
  });

  it('refuses rows merged from disk whose last is cut short, rather than drop or join it', async () => {
    const path = join(dir, 'rows.jsonl');
    await writeFile(path, staged.trimEnd());
    await expect(sortStagedRows(path, ['at'], { runBytes: 4096 })).rejects.toThrow(/no newline/);
  });

  it('lets the event loop turn while it sorts a file that fits in one run', async () => {
    // odsnap start serves from the process that pulls: a run of tens of megabytes held it for seconds.
    const path = join(dir, 'rows.jsonl');
    const wide = Array.from({ length: 8000 }, (_, i) => JSON.stringify({ at: (i * 7919) % 8000, text: 'x'.repeat(1000) })).join('\n') + '\n';
    await writeFile(path, wide);
    let turns = 0;
    let sorting = true;
    const turn = () => {
      if (!sorting) return;
      turns++;
      setImmediate(turn);
    };
    setImmediate(turn);
    await sortStagedRows(path, ['at']);
    sorting = false;
    // About 8 MB, parsed and gathered a megabyte at a time and written off the loop: many turns, where one sweep took none.
    expect(turns).toBeGreaterThanOrEqual(14);
  });
});

describe('compareKeys', () => {
  it('orders numbers numerically, text by code point, and nulls last', () => {
    expect(compareKeys([2], [10])).toBeLessThan(0);
    expect(compareKeys(['b'], ['a'])).toBeGreaterThan(0);
    expect(compareKeys([null], [1])).toBeGreaterThan(0);
    expect(compareKeys([1, 'a'], [1, 'a'])).toBe(0);
  });
});
