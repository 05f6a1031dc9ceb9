import { mkdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TreeOutput } from '../../../scripts/static/tree-output.ts';
import { filesOfState, linesOf, readState, segmentHead, stateFileOf, stateHead, treesDir } from '../../../scripts/static/tree-state.ts';
import { tempDir } from '../../fixtures/tiny.ts';

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
    state.close();
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

  it('is read line by line (a line split between reads, a multi-byte character too, a carriage return within a path), its segments again when asked, once deleted too', async () => {
    const tree = join(await tempDir('tree-state-lines'), 'a');
    const loose = new Map([
      ['api/with\rreturn.json', 'h0'],
      ['api/plain.json', 'h1\tinput'],
    ]);
    // The state is read a mebibyte at a time: the first segment's lines run over that mark, and a
    // two-byte "ł" is made to straddle it.
    const head = stateHead('S1', 'key') + linesOf(loose);
    const filler = 'x'.repeat((1 << 20) - Buffer.byteLength(head) - 200);
    const first = linesOf([
      [`api/${filler}.json`, 'h2'],
      ['api/' + 'ł'.repeat(100) + '.json', 'h3\tin'],
    ]);
    const second = linesOf([['api/"quoted".json', 'h4']]);
    await writeFile(stateFileOf(tree), head + segmentHead('items#0', 'p0', 2, first) + first + segmentHead('items#1', 'p1', 1, second) + second);
    expect(Buffer.byteLength(head + segmentHead('items#0', 'p0', 2, first) + first)).toBeGreaterThan(1 << 20);
    const state = (await readState(tree))!;
    expect([state.snapshot, state.renderKey, state.files]).toEqual(['S1', 'key', loose]);
    expect([...state.segments].map(([key, { print, count, text }]) => [key, print, count, text()])).toEqual([
      ['items#0', 'p0', 2, first],
      ['items#1', 'p1', 1, second],
    ]);
    expect(state.segments.get('items#1')!.files()).toEqual(new Map([['api/"quoted".json', 'h4']]));
    // A build deletes the state of the tree it writes over before it has read its segments.
    await rm(stateFileOf(tree));
    expect(state.segments.get('items#0')!.text()).toBe(first);
    state.close();
    expect(() => state.segments.get('items#1')!.text()).toThrow(/read after it was closed/);
  });

  it('is read from the JSON an older odsnap saved', async () => {
    const out = join(await tempDir('tree-state-json'), 'dist');
    const tree = join(treesDir(out), 'a');
    await mkdir(treesDir(out), { recursive: true });
    await writeFile(
      `${tree}.json`,
      JSON.stringify({ snapshot: 'S0', renderKey: 'old', files: { 'api/a.json': 'h1', 'api/b.json': 'h2' }, inputs: { 'api/b.json': 'in' } }),
    );
    const state = (await readState(tree))!;
    expect(state.snapshot).toBe('S0');
    expect([...state.files]).toEqual([
      ['api/a.json', 'h1'],
      ['api/b.json', 'h2\tin'],
    ]);
  });

  it('carries a segment whole while its print is unchanged, links what the tree lacks, and deletes the files of segments gone', async () => {
    const out = join(await tempDir('tree-segments'), 'dist');
    /** One build: `segments` by key, with their print and files; those in `carry` are carried whole. */
    const build = async (segments: Record<string, { print: string; files: string[] }>, carry: readonly string[]) => {
      const output = await TreeOutput.open(out, 'key');
      try {
        for (const [key, { print, files }] of Object.entries(segments)) {
          if (carry.includes(key)) {
            expect(output.previousSegment(key)).toBe(print);
            await output.carrySegment(key, print);
            continue;
          }
          output.openSegment(key, print);
          for (const path of files) await output.write(path, JSON.stringify({ path }), { input: `${print}/${path}`, segment: key });
        }
        await output.write('api/loose.json', '{}');
        await output.publish('S');
        return { ...output.counts, tree: await realpath(out) };
      } finally {
        await output.close();
      }
    };
    const one = { print: 'p1', files: ['api/items/b.json', 'api/items/a.json'] };
    const two = { print: 'p2', files: ['api/items/c.json'] };
    const first = await build({ 'items#1': one, 'items#2': two }, []);
    expect(first).toMatchObject({ files: 4, written: 12 });
    const state = (await readState(first.tree))!;
    expect([...state.segments.keys()]).toEqual(['items#1', 'items#2']);
    expect([...filesOfState(state).keys()].sort()).toEqual(['api/items/a.json', 'api/items/b.json', 'api/items/c.json', 'api/loose.json']);
    expect(filesOfState(state).get('api/items/a.json')).toMatch(/\tp1\/api\/items\/a\.json$/);
    state.close();

    // The other tree is empty: the carried segment's files (and the unchanged loose one) are linked into it, with their variants.
    const second = await build({ 'items#1': one }, ['items#1']);
    expect(second).toMatchObject({ files: 3, carried: 2, linked: 9, written: 0, deleted: 0 });
    expect((await stat(join(second.tree, 'api/items/a.json'))).ino).toBe((await stat(join(first.tree, 'api/items/a.json'))).ino);

    // Back to the first tree, which holds the segment as it is: nothing to do for it; the segment gone is deleted.
    const third = await build({ 'items#1': one }, ['items#1']);
    expect(third).toMatchObject({ files: 3, carried: 2, linked: 0, written: 0, deleted: 1 });
    expect(existsSync(join(third.tree, 'api/items/c.json'))).toBe(false);
    expect(existsSync(join(third.tree, 'api/items/c.json.br'))).toBe(false);
    expect(JSON.parse(await readFile(join(third.tree, 'api/items/b.json'), 'utf8'))).toEqual({ path: 'api/items/b.json' });
  });

  it("sets down a segment's lines on disk once its files are all in, and saves from there the state it would have held", async () => {
    const out = join(await tempDir('tree-closed-segments'), 'dist');
    const output = await TreeOutput.open(out, 'key');
    const spill = `${output.dir}.state-next`;
    try {
      output.openSegment('items#1', 'p1');
      output.openSegment('items#2', 'p2');
      for (const path of ['api/items/b.json', 'api/items/ż.json', 'api/items/a.json'])
        await output.write(path, JSON.stringify({ path }), { input: `in/${path}`, segment: 'items#1' });
      await output.write('api/items/c.json', '{}', { segment: 'items#2' });
      expect(existsSync(spill)).toBe(false);
      output.closeSegments();
      // In pieces as they came (sorted when read back: see segmentFiles and the state below), each line once.
      expect(
        (await readFile(spill, 'utf8'))
          .split('\n')
          .map((line) => line.split('\t')[0])
          .sort(),
      ).toEqual(['', 'api/items/a.json', 'api/items/b.json', 'api/items/c.json', 'api/items/ż.json']);
      await expect(output.write('api/items/d.json', '{}', { segment: 'items#1' })).rejects.toThrow(/segment items#1 was not opened, or was closed/);
      expect(output.segmentFiles('items#1')).toEqual(['api/items/a.json', 'api/items/b.json', 'api/items/ż.json']);
      await output.write('api/loose.json', '{}');
      await output.publish('S');
    } finally {
      await output.close();
    }
    expect(existsSync(spill)).toBe(false);
    const state = (await readState(await realpath(out)))!;
    expect([...state.segments].map(([key, segment]) => [key, segment.print, segment.count])).toEqual([
      ['items#1', 'p1', 3],
      ['items#2', 'p2', 1],
    ]);
    expect([...filesOfState(state).keys()].sort()).toEqual(['api/items/a.json', 'api/items/b.json', 'api/items/c.json', 'api/items/ż.json', 'api/loose.json']);
    expect(filesOfState(state).get('api/items/ż.json')).toMatch(/^[\w-]+\tin\/api\/items\/ż\.json$/);
    state.close();
  });
});
