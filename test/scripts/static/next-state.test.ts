import { existsSync, openSync, readFileSync, statSync, symlinkSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LINES_HELD, NextState } from '../../../scripts/static/next-state.ts';
import { tempDir } from '../../fixtures/tiny.ts';

describe("the next state's spill file", () => {
  // /dev/full answers every write with ENOSPC, as a disk that filled up does; a link to it stands in for the spill file.
  it.skipIf(!existsSync('/dev/full'))('names itself when the disk is full, as every other file of the build does', async () => {
    const spill = join(await tempDir('next-state'), 'a.state-next');
    symlinkSync('/dev/full', spill);
    const state = new NextState(spill);
    state.openSegment('rcn/items', 'print');
    state.add('api/public/rcn/transactions/1', 'hash\tinput', 'rcn/items');
    try {
      expect(() => state.closeSegments()).toThrow(`ENOSPC: no space left on device, write '${spill}'`);
    } finally {
      state.close();
    }
    expect(existsSync('/dev/full')).toBe(true);
  });
});

describe("a segment's files made one by one", () => {
  /** Paths of an endpoint's items in row order, their segments by the key's last digit (a stand-in for the hash). */
  const items = (count: number) =>
    Array.from({ length: count }, (_, i) => ({ path: `api/public/rcn/transactions/${((count - i) * 7919) % 100_003}`, segment: `items#${i % 10}` }));

  it('are set down in the spill file as they come, not held until their endpoint is done', async () => {
    const spill = join(await tempDir('next-state'), 'a.state-next');
    const state = new NextState(spill);
    try {
      for (let s = 0; s < 10; s++) state.openSegment(`items#${s}`, 'print');
      for (const { path, segment } of items(LINES_HELD + 1)) state.add(path, 'hash\tinput', segment);
      expect(existsSync(spill) && statSync(spill).size).toBeGreaterThan(0);
    } finally {
      state.close();
    }
  });

  it('are listed once each, sorted by path, whatever pieces they were set down in', async () => {
    const spill = join(await tempDir('next-state'), 'a.state-next');
    const state = new NextState(spill);
    const out = `${spill}.state`;
    try {
      for (let s = 0; s < 10; s++) state.openSegment(`items#${s}`, 'print');
      const all = items(2 * LINES_HELD + 123);
      for (const { path, segment } of all) state.add(path, `hash-of-${path}\tinput`, segment);
      state.closeSegments();
      for (let s = 0; s < 10; s++) {
        const expected = all
          .filter((item) => item.segment === `items#${s}`)
          .map((item) => item.path)
          .sort();
        expect(state.segmentFiles(`items#${s}`)).toEqual(expected);
      }
      const fd = openSync(out, 'w');
      state.write(fd, 'snapshot', 'key');
      closeSync(fd);
      const lines = readFileSync(out, 'utf8')
        .split('\n')
        .filter((line) => line && !line.startsWith('\t') && !line.startsWith('{'));
      expect(lines).toHaveLength(all.length);
      expect(lines.every((line) => line === `${line.split('\t')[0]}\thash-of-${line.split('\t')[0]}\tinput`)).toBe(true);
    } finally {
      state.close();
    }
  });

  it('are refused when one comes twice, even in different pieces', async () => {
    const spill = join(await tempDir('next-state'), 'a.state-next');
    const state = new NextState(spill);
    try {
      state.openSegment('items#0', 'print');
      state.add('api/public/rcn/transactions/1', 'hash\tinput', 'items#0');
      for (let i = 2; i <= LINES_HELD + 1; i++) state.add(`api/public/rcn/transactions/${i}`, 'hash\tinput', 'items#0');
      state.add('api/public/rcn/transactions/1', 'hash\tinput', 'items#0');
      expect(() => state.closeSegments()).toThrow('the static tree got api/public/rcn/transactions/1 twice');
    } finally {
      state.close();
    }
  });
});
