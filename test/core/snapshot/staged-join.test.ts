import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { joinStagedRows } from '../../../core/snapshot/staged-join.ts';
import { sortStagedRows } from '../../../core/snapshot/staged-rows.ts';

let dir: string;
beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'odsnap-staged-join-'))));
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('joinStagedRows', () => {
  it('fills each row from the line of its key read beside it, the last of equal keys, none where there is none', async () => {
    // Values over a megabyte, so they are read in more than one chunk; a key in three of
    // four rows has values, some keys twice; rows repeat keys too.
    const keys = Array.from({ length: 6000 }, (_, i) => `property ${(i * 7919) % 4000}`);
    const values = keys.filter((_, i) => i % 4 !== 0).map((id, i) => ({ id, value: `${i} ${'v'.repeat(200)}` }));
    const [rowsPath, valuesPath] = [join(dir, 'rows.jsonl'), join(dir, 'values.jsonl')];
    await writeFile(rowsPath, keys.map((id, n) => JSON.stringify({ id, n })).join('\n') + '\n');
    await writeFile(valuesPath, values.map((line) => JSON.stringify(line)).join('\n') + '\n');
    await sortStagedRows(rowsPath, ['id'], { runBytes: 64 * 1024 });
    await sortStagedRows(valuesPath, ['id'], { runBytes: 64 * 1024 });
    await joinStagedRows(rowsPath, valuesPath, ['id'], (row, found) => void (row.value = found?.value ?? null));

    const expected = new Map(values.map((line) => [line.id, line.value]));
    const joined = (await readFile(rowsPath, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; n: number; value: string | null });
    expect(joined).toHaveLength(keys.length);
    expect(new Set(joined.map((row) => row.n)).size).toBe(keys.length);
    for (const row of joined) expect(row.value).toBe(expected.get(row.id) ?? null);
    expect(joined.filter((row) => row.value === null).length).toBeGreaterThan(0);
  });
});
