import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readState, TreeOutput, treesDir } from '../../scripts/static/tree-output.ts';
import { tempDir } from '../fixtures/tiny.ts';

describe("a static tree's saved state", () => {
  it('lists every file with its hash and input, paths with tabs, line breaks and quotes included', async () => {
    const out = join(await tempDir('tree-state'), 'dist');
    const paths = ['api/plain.json', 'api/with\ttab.json', 'api/with\nbreak.json', '"quoted".json', 'api/ünïcode ż.json'];
    const output = await TreeOutput.open(out, 'key');
    try {
      for (const [i, path] of paths.entries()) await output.write(path, `{"n":${i}}`, { input: i % 2 ? `input-${i}` : undefined });
      await output.publish('S1');
    } finally {
      await output.close();
    }
    const state = (await readState(await realpath(out)))!;
    expect({ snapshot: state.snapshot, renderKey: state.renderKey }).toEqual({ snapshot: 'S1', renderKey: 'key' });
    expect([...state.files.keys()].sort()).toEqual([...paths].sort());
    expect(state.files.get('api/with\ttab.json')).toMatch(/^[\w-]+\tinput-1$/);
    expect(state.files.get('api/plain.json')).toMatch(/^[\w-]+$/);
    // Each file's content is what the state says: a build over it carries every file with an unchanged input.
    const again = await TreeOutput.open(out, 'key');
    try {
      expect(again.previousInput('api/with\ttab.json')).toBe('input-1');
      expect(again.previousInput('"quoted".json')).toBe('input-3');
    } finally {
      await again.close();
    }
    expect(JSON.parse(await readFile(join(await realpath(out), 'api/with\nbreak.json'), 'utf8'))).toEqual({ n: 2 });
  });

  it('is read from the JSON an older odsnap saved', async () => {
    const out = join(await tempDir('tree-state-json'), 'dist');
    const tree = join(treesDir(out), 'a');
    await mkdir(treesDir(out), { recursive: true });
    await writeFile(`${tree}.json`, JSON.stringify({ snapshot: 'S0', renderKey: 'old', files: { 'api/a.json': 'h1', 'api/b.json': 'h2' }, inputs: { 'api/b.json': 'in' } }));
    const state = (await readState(tree))!;
    expect(state.snapshot).toBe('S0');
    expect([...state.files]).toEqual([
      ['api/a.json', 'h1'],
      ['api/b.json', 'h2\tin'],
    ]);
  });
});
