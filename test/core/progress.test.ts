import { describe, expect, it } from 'vitest';
import { counted, Progress } from '../../core/progress.ts';
import { capture } from '../fixtures/output.ts';

describe('counts in progress lines', () => {
  it('say one file, not one files, and group thousands', () => {
    expect(counted(1, 'file')).toBe('1 file');
    expect(counted(0, 'file')).toBe('0 files');
    expect(counted(2048, 'file')).toBe('2,048 files');
  });
});

describe('progress', () => {
  it('writes each finished step as a JSON line with its msg when the format is JSON, and redraws nothing, even on a terminal', () => {
    const output = { ...capture(), interactive: true, format: 'json' as const };
    const progress = new Progress(output);
    progress.update('citybike/rides 1,200 rows');
    progress.step('static tree built');
    const lines = output.err().split('\n').slice(0, -1);
    expect(lines.map((line) => JSON.parse(line))).toEqual([{ time: expect.any(String), msg: 'static tree built' }]);
  });

  it('writes a finished step readably off a terminal when no format was settled', () => {
    const output = capture();
    new Progress(output).step('static tree built');
    expect(output.err()).toMatch(/^\[ +\d+\.\ds\] static tree built\n$/);
  });
});
