import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RecordFile, RecordFileWriter } from '../../server/record-store.ts';
import { tempDir } from '../fixtures/tiny.ts';

describe('a record file', () => {
  it('finds the first row in row order by each key column, and nothing for keys it does not hold', async () => {
    const path = join(await tempDir('record-file'), 'things');
    const writer = new RecordFileWriter(path, ['id', 'external']);
    const rows: [string, string | null, string | null][] = [
      ['{"id":"b"}', 'b', 'x-1'],
      ['{"id":"a","name":"Łódź"}', 'a', null],
      ['{"id":"ą"}', 'ą', 'x-2'],
      ['{"id":"b","second":true}', 'b', 'x-1'],
      ['{}', null, null],
      ['{"id":"ab"}', 'ab', 'b'],
    ];
    for (const [text, id, external] of rows) writer.add(text, [id, external]);
    writer.finish();
    const records = RecordFile.open(path);
    try {
      expect(records.find('id', 'b')?.toString()).toBe('{"id":"b"}');
      expect(records.find('id', 'a')?.toString()).toBe('{"id":"a","name":"Łódź"}');
      expect(records.find('id', 'ą')?.toString()).toBe('{"id":"ą"}');
      expect(records.find('id', 'ab')?.toString()).toBe('{"id":"ab"}');
      expect(records.find('external', 'x-1')?.toString()).toBe('{"id":"b"}');
      expect(records.find('external', 'b')?.toString()).toBe('{"id":"ab"}');
      for (const missing of ['', 'c', 'a ', 'A', 'aa', 'x-3']) expect(records.find('id', missing), missing).toBeUndefined();
      expect(records.find('other', 'a')).toBeUndefined();
      expect(records.has('id')).toBe(true);
      expect(records.has('other')).toBe(false);
      const joined = (wanted: number[]) => records.withJoined(wanted, 0x2c, (bytes) => bytes.toString());
      expect(joined([3, 0, 1, 2, 5])).toBe(['{"id":"b","second":true}', '{"id":"b"}', '{"id":"a","name":"Łódź"}', '{"id":"ą"}', '{"id":"ab"}'].join(','));
      // The buffer read into is used again: a shorter read after a longer one, runs of neighbours
      // after scattered rows, and the other way round, each give only its own rows.
      expect(joined([4])).toBe('{}');
      expect(joined([1, 2, 3, 4, 5])).toBe(
        rows
          .slice(1)
          .map(([text]) => text)
          .join(','),
      );
      expect(joined([5, 0])).toBe('{"id":"ab"},{"id":"b"}');
      expect(joined([])).toBe('');
    } finally {
      records.close();
    }
  });

  it('holds a file of no rows', async () => {
    const path = join(await tempDir('record-file-empty'), 'nothing');
    new RecordFileWriter(path, ['id']).finish();
    const records = RecordFile.open(path);
    expect(records.find('id', 'a')).toBeUndefined();
    records.close();
  });
});
