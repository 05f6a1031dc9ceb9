import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { datasets } from '../../../datasets/index.ts';
import { ownSpillDir } from '../../../core/db/spill.ts';
import { ServedSnapshot } from '../../../server/served-snapshot.ts';
import { tempDir, tinySnapshot } from '../../fixtures/tiny.ts';

describe('spill directories', () => {
  it('gives every served snapshot a directory of its own, removed when it closes', async () => {
    const snapshot = await tinySnapshot();
    const [one, two] = [await ServedSnapshot.open(snapshot, datasets), await ServedSnapshot.open(snapshot, datasets)];
    const spillOf = (served: ServedSnapshot) =>
      served.use(async (connection) => (await connection.rows(`SELECT current_setting('temp_directory') AS dir`))[0]!.dir as string);
    const dirs = [await spillOf(one), await spillOf(two)];
    expect(dirs[0]).not.toBe(dirs[1]);
    for (const dir of dirs) {
      expect(dirname(dir)).toBe(snapshot.cacheDir);
      expect(existsSync(dir)).toBe(true);
    }
    one.retire();
    two.retire();
    for (const dir of dirs) expect(existsSync(dir)).toBe(false);
  });

  it("removes the directories of this host's processes that no longer run, and keeps all others", async () => {
    const parent = await tempDir('spill');
    const ended = spawnSync(process.execPath, ['-e', '']).pid;
    const kept = [`spill-${hostname()}-${process.pid}-abcdef`, `spill-elsewhere-${ended}-abcdef`, 'not-a-spill'];
    for (const name of [...kept, `spill-${hostname()}-${ended}-abcdef`]) await mkdir(join(parent, name));
    const own = await ownSpillDir(parent);
    expect((await readdir(parent)).sort()).toEqual([...kept, own.path.slice(parent.length + 1)].sort());
    own.remove();
    expect(existsSync(own.path)).toBe(false);
    await rm(parent, { recursive: true });
  });
});
