import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sourceHash } from '../../core/source-hash.ts';
import { tempDir } from '../fixtures/tiny.ts';

describe('the hash of sources that keys generated output', () => {
  it('changes with any TypeScript source under its directories and files, and with the salt, and with nothing else', async () => {
    const dir = await tempDir('source-hash');
    await mkdir(join(dir, 'nested'));
    await writeFile(join(dir, 'a.ts'), 'export const a = 1;');
    await writeFile(join(dir, 'nested', 'b.ts'), 'export const b = 2;');
    await writeFile(join(dir, 'notes.md'), 'not code');
    await writeFile(join(dir, 'single.ts'), 'export const c = 3;');
    const hash = () => sourceHash([pathToFileURL(join(dir, 'nested')), pathToFileURL(join(dir, 'a.ts'))], 'salt');
    const first = await hash();
    expect(await hash()).toBe(first);
    expect(await sourceHash([pathToFileURL(join(dir, 'nested')), pathToFileURL(join(dir, 'a.ts'))], 'other')).not.toBe(first);
    await writeFile(join(dir, 'notes.md'), 'still not code');
    await writeFile(join(dir, 'single.ts'), 'export const c = 4;');
    expect(await hash()).toBe(first);
    await writeFile(join(dir, 'nested', 'b.ts'), 'export const b = 3;');
    const second = await hash();
    expect(second).not.toBe(first);
    await writeFile(join(dir, 'a.ts'), 'export const a = 2;');
    expect(await hash()).not.toBe(second);
  });
});
