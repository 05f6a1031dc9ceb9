import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSnapshot } from '../../../core/snapshot/read.ts';
import { verifySnapshot } from '../../../core/snapshot/verify.ts';
import { writeSnapshot } from '../../../core/snapshot/write.ts';
import { datasets } from '../../../datasets/index.ts';
import { tempDir, tinyDataDir } from '../../fixtures/tiny.ts';

describe('recording what a pull changed', () => {
  it('publishes the snapshot without a record, saying why, when the snapshot before cannot be read', async () => {
    const dataDir = await tempDir('changes-unreadable');
    await cp(tinyDataDir(), dataDir, { recursive: true, verbatimSymlinks: true });
    const previous = await openSnapshot(dataDir);
    // A file of the snapshot before that is no Parquet: only the diff reads it.
    const spoiled = previous.manifest.datasets['bike-counter']!.tables.readings!.files[0]!;
    await writeFile(join(previous.dir, spoiled.path), 'not parquet');
    const log: string[] = [];
    const written = await writeSnapshot(
      {
        dataDir,
        datasets,
        source: { kind: 'pull', upstream: 'http://upstream.invalid' },
        createdAt: Date.parse('2026-01-01T00:00:00Z'),
        previous,
        recordChanges: true,
        log: (line) => log.push(line),
      },
      async () => {},
    );
    expect(written.manifest.changes).toBeUndefined();
    expect(log.join('\n')).toMatch(new RegExp(`changes since ${previous.id} not recorded: `));
    expect((await openSnapshot(dataDir)).id).toBe(written.id);
    expect((await verifySnapshot(written.dir)).mismatches).toEqual([]);
  });
});
