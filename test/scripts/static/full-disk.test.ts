import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { datasets } from '../../../datasets/index.ts';
import { buildStatic } from '../../../scripts/static/build-static.ts';
import { treesDir } from '../../../scripts/static/tree-state.ts';
import { tempDir, tinyDataDir } from '../../fixtures/tiny.ts';

/** A small file system of its own, a tmpfs: only root may mount one, where the system lets it. */
const mountTmpfs = (dir: string, size: string) => execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
const unmount = (dir: string) => execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
const canMount = (() => {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const probe = mkdtempSync(join(tmpdir(), 'odsnap-tmpfs-probe-'));
  try {
    mountTmpfs(probe, '64k');
    unmount(probe);
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();

describe('a build onto a disk that fills up', () => {
  it.skipIf(!canMount)('says which file it could not write, and leaves no partial tree behind', async () => {
    const disk = await tempDir('full-disk');
    // Room for the downloads' caches, not for the tree (about 18 MB).
    mountTmpfs(disk, '2m');
    try {
      const out = join(disk, 'dist');
      const failed = (await buildStatic({ dataDir: tinyDataDir(), out, datasets }).then(
        () => undefined,
        (error: unknown) => error,
      )) as Error | undefined;
      // The tree's files, the caches beside it and the lines of its state set down at an endpoint's end are written at
      // once: the write that finds the disk full may be any of theirs.
      expect(failed?.message).toMatch(
        new RegExp(`^ENOSPC: no space left on device, write '${disk}/\\.dist-trees/((a|prints|csv|statistics)/.+|a\\.state-next)'$`),
      );
      expect(existsSync(out)).toBe(false);
      expect(existsSync(join(treesDir(out), 'a'))).toBe(false);
      // What stays is whole files of the caches beside the trees, for the next build: nothing half written, no lock.
      const left = (await readdir(treesDir(out), { recursive: true })).map(String);
      expect(left.filter((name) => !/^(csv|prints|statistics)(\/[\w-]+\.(json|csv\.gz))?$/.test(name))).toEqual([]);
    } finally {
      unmount(disk);
    }
  });
});
