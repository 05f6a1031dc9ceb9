import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAt, TextAppender, writeAt } from '../../core/file-bytes.ts';
import { tempDir } from '../fixtures/tiny.ts';

describe('bytes at a place in a file', () => {
  it('writes at a position or where the file stands, and reads back what is there', async () => {
    const file = join(await tempDir('file-bytes'), 'f');
    writeFileSync(file, '');
    const fd = openSync(file, 'r+');
    try {
      writeAt(fd, Buffer.from('hello'));
      writeAt(fd, Buffer.from(' world'));
      writeAt(fd, Buffer.from('J'), 6);
      const into = Buffer.alloc(5);
      readAt(fd, into, 5, 6, file);
      expect(into.toString()).toBe('Jorld');
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(file, 'utf8')).toBe('hello Jorld');
  });

  it('says which file ended, and where, when it holds fewer bytes than asked for', async () => {
    const file = join(await tempDir('file-bytes-short'), 'short');
    writeFileSync(file, '0123456789');
    const fd = openSync(file, 'r');
    try {
      expect(() => readAt(fd, Buffer.alloc(8), 8, 4, 'the short file')).toThrow('the short file ends at byte 10, before the 8 bytes read at 4');
    } finally {
      closeSync(fd);
    }
  });
});

describe('texts appended to a file', () => {
  it('writes them in order as UTF-8, across the held buffer and past its size, counting their bytes', async () => {
    const file = join(await tempDir('text-appender'), 'f');
    const fd = openSync(file, 'w');
    const texts = ['żółw,', 'a'.repeat(700_000), 'ł'.repeat(300_000), 'x'.repeat(2_000_000), 'end'];
    const appender = new TextAppender(fd);
    const lengths = texts.map((text) => appender.append(text));
    appender.flush();
    closeSync(fd);
    expect(lengths).toEqual(texts.map((text) => Buffer.byteLength(text)));
    expect(appender.size).toBe(lengths.reduce((a, b) => a + b, 0));
    expect(readFileSync(file, 'utf8')).toBe(texts.join(''));
  });
});
