import { existsSync } from 'node:fs';
import { readlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/**
 * A data directory:
 *
 *   current -> snapshots/<id>        the snapshot readers use, swapped atomically
 *   snapshots/<id>/manifest.json     immutable snapshots
 *   snapshots/<id>/<data set>/<table>/<key>=<value>/…/part-0.parquet
 *   cache/<id>/                      what readers derive from a snapshot (e.g. the server's
 *                                    database); safe to delete, made again when needed
 *   .staging/                        snapshots being written; never read
 *   sample-upstream/                 `odsnap start` only: the sample city it pulls from, itself a
 *                                    data directory
 */
export const dataLayout = (dataDir: string) => {
  const root = resolve(dataDir);
  return {
    root,
    current: join(root, 'current'),
    snapshots: join(root, 'snapshots'),
    snapshot: (id: string) => join(root, 'snapshots', id),
    cache: (id: string) => join(root, 'cache', id),
    staging: join(root, '.staging'),
  };
};

/** The data directory a snapshot's directory (`<root>/snapshots/<id>`) is in. */
export const dataDirOf = (snapshotDir: string) => resolve(snapshotDir, '..', '..');

/** Whether a text can be a snapshot's id: a name, not a path (`..` is none). */
export const isSnapshotId = (id: string) => /^\w[\w.-]*$/.test(id);

/** Whether the data directory holds a snapshot of that id. */
export const holdsSnapshot = (dataDir: string, id: string) => isSnapshotId(id) && existsSync(dataLayout(dataDir).snapshot(id));

/** Where the data directory is: `--data`, else ODSNAP_DATA, else ./data. */
export const defaultDataDir = () => process.env.ODSNAP_DATA || 'data';

/** The id of the current snapshot, or undefined when the directory has none yet. */
export async function currentSnapshotId(dataDir: string): Promise<string | undefined> {
  try {
    const target = await readlink(dataLayout(dataDir).current);
    return target.split('/').pop();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
