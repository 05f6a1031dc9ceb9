import { existsSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NextState } from '../../../scripts/static/next-state.ts';
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
