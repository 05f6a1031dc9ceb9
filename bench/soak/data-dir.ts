import { mkdir, mkdtemp, readlink, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { dataLayout } from '../../core/snapshot/layout.ts';
import { makeCurrent } from '../../core/snapshot/write.ts';

export interface SoakData {
  readonly dir: string;
  /** The server's cache directory, empty: its serving databases are built in the run. */
  readonly cache: string;
  /** Makes the second snapshot current; returns its id. */
  swap(): Promise<string>;
}

/** The soak's data directory: both snapshots linked in, `current` on the first, nothing derived yet. */
export async function soakDataDir(first: string, next: string): Promise<SoakData> {
  const dir = join(process.cwd(), '.cache', 'bench', 'soak');
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, 'snapshots'), { recursive: true });
  const ids: string[] = [];
  for (const source of [first, next]) {
    const id = (await readlink(dataLayout(source).current)).split('/').pop()!;
    await symlink(dataLayout(source).snapshot(id), join(dir, 'snapshots', id));
    ids.push(id);
  }
  await symlink(`snapshots/${ids[0]}`, join(dir, 'current'));
  const cache = await mkdtemp(join(dir, 'cache-'));
  return {
    dir,
    cache,
    async swap() {
      // As a pull makes a snapshot current: a new link renamed over the old.
      await makeCurrent(dir, ids[1]!);
      return ids[1]!;
    },
  };
}
