import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ownBytes, TreeWriters, type FileCounts } from '../../../scripts/static/tree-writers.ts';
import { tempDir } from '../../fixtures/tiny.ts';

const counted = () => {
  const total: FileCounts = { written: 0, bytes: 0, linked: 0 };
  const onDone = (done: FileCounts) => {
    total.written += done.written;
    total.bytes += done.bytes;
    total.linked += done.linked;
  };
  return { total, onDone };
};

describe('the writer threads of a static build', () => {
  it('write every file handed over, with its variants, and hard-link files, across batches and threads', async () => {
    const dir = await tempDir('tree-writers');
    const { total, onDone } = counted();
    const writers = new TreeWriters(onDone, 2);
    try {
      const bodies = Array.from({ length: 300 }, (_, i) =>
        JSON.stringify({ id: i, name: `stacja ${i} Świętokrzyska`, values: Array.from({ length: i }, (_, j) => j) }),
      );
      bodies.forEach((body, i) =>
        writers.add({
          kind: 'write',
          target: join(dir, 'items', String(i % 7), `${i}.json`),
          data: ownBytes(body),
          replace: false,
          compress: true,
          endingBytes: 0,
        }),
      );
      await writeFile(join(dir, 'source.parquet'), 'PAR1');
      writers.add({ kind: 'link', source: join(dir, 'source.parquet'), target: join(dir, 'downloads', 'a.parquet') });
      await writers.flush();

      for (const [i, body] of bodies.entries()) {
        const path = join(dir, 'items', String(i % 7), `${i}.json`);
        expect(await readFile(path, 'utf8')).toBe(body);
        expect(gunzipSync(await readFile(`${path}.gz`)).toString()).toBe(body);
        expect(brotliDecompressSync(await readFile(`${path}.br`)).toString()).toBe(body);
      }
      expect((await stat(join(dir, 'downloads', 'a.parquet'))).ino).toBe((await stat(join(dir, 'source.parquet'))).ino);
      expect(total.written).toBe(900);
      expect(total.linked).toBe(1);
    } finally {
      await writers.close();
    }
  });

  it('fail the build with the error of a file that cannot be written, and refuse more work', async () => {
    const dir = await tempDir('tree-writers-failing');
    await writeFile(join(dir, 'not-a-directory'), '');
    const writers = new TreeWriters(() => {}, 2);
    try {
      writers.add({ kind: 'write', target: join(dir, 'fine.json'), data: ownBytes('{}'), replace: false, compress: true, endingBytes: 0 });
      writers.add({ kind: 'write', target: join(dir, 'not-a-directory', 'a.json'), data: ownBytes('{}'), replace: false, compress: true, endingBytes: 0 });
      await expect(writers.flush()).rejects.toThrow(/ENOTDIR|EEXIST/);
      expect(() =>
        writers.add({ kind: 'write', target: join(dir, 'later.json'), data: ownBytes('{}'), replace: false, compress: false, endingBytes: 0 }),
      ).toThrow(/ENOTDIR|EEXIST/);
    } finally {
      await writers.close();
    }
  });

  it('never write into a file that is there (it may be a hard link of the tree in use), but replace it when told to', async () => {
    const dir = await tempDir('tree-writers-replace');
    await mkdir(join(dir, 'in-use'));
    await writeFile(join(dir, 'in-use', 'a.json'), 'old');
    const writers = new TreeWriters(() => {}, 1);
    try {
      writers.add({ kind: 'link', source: join(dir, 'in-use', 'a.json'), target: join(dir, 'next', 'a.json') });
      await writers.flush();
      writers.add({ kind: 'write', target: join(dir, 'next', 'a.json'), data: ownBytes('new'), replace: true, compress: false, endingBytes: 0 });
      await writers.flush();
      expect(await readFile(join(dir, 'in-use', 'a.json'), 'utf8')).toBe('old');
      expect(await readFile(join(dir, 'next', 'a.json'), 'utf8')).toBe('new');
      writers.add({ kind: 'write', target: join(dir, 'next', 'a.json'), data: ownBytes('newer'), replace: false, compress: false, endingBytes: 0 });
      await expect(writers.flush()).rejects.toThrow(/EEXIST/);
    } finally {
      await writers.close();
    }
  });
});

describe('the bytes handed to a writer thread', () => {
  it('are a buffer of their own, so handing them over detaches nothing else', () => {
    const shared = Buffer.from('{"a":1}');
    const own = ownBytes(shared);
    expect(own.buffer).not.toBe(shared.buffer);
    expect(own.byteLength).toBe(own.buffer.byteLength);
    const fromText = ownBytes('{"b":2}');
    expect(fromText.byteLength).toBe(fromText.buffer.byteLength);
    expect(Buffer.from(fromText).toString()).toBe('{"b":2}');
  });
});
