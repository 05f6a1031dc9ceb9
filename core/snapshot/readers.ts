import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ownerGone, ownerTag } from '../process-owner.ts';
import { dataLayout } from './layout.ts';
import { MANIFEST_FILE } from './manifest.ts';

/**
 * Which snapshots running processes read (a server, a build, a query), so that `odsnap prune`
 * leaves them: each reader leaves a mark, `.readers/<id>@<host>-<pid>-<random>`, in the data
 * directory while it reads, and a mark whose process is gone counts for nothing. A reader that
 * cannot write the data directory (a read-only mount, another user) leaves no mark: a prune by
 * someone who can write it does not see that reader.
 */

const readersDir = (dataDir: string) => join(dataLayout(dataDir).root, '.readers');

/**
 * Marks snapshot `id` as read by this process; returns what removes the mark (safe to call twice).
 * The snapshot is looked for once marked: a prune that removed it before seeing the mark (see
 * retention.ts) makes this fail, rather than a read of files that are going.
 */
export function markReading(dataDir: string, id: string): () => void {
  const file = join(readersDir(dataDir), `${id}@${ownerTag()}-${randomBytes(4).toString('hex')}`);
  let unmark = () => {};
  try {
    mkdirSync(readersDir(dataDir), { recursive: true });
    writeFileSync(file, '');
    unmark = () => rmSync(file, { force: true });
  } catch {
    // Not writable: no mark (and no prune here by this user).
  }
  if (!existsSync(join(dataLayout(dataDir).snapshot(id), MANIFEST_FILE))) {
    unmark();
    throw new Error(`snapshot ${id} was removed (pruned) as it was being opened`);
  }
  return unmark;
}

/** The snapshots running processes read; marks their dead owners left are removed. */
export function snapshotsRead(dataDir: string): Set<string> {
  const read = new Set<string>();
  let names: string[];
  try {
    names = readdirSync(readersDir(dataDir));
  } catch {
    return read;
  }
  for (const name of names) {
    const [, id, host, pid] = /^(.+)@(.+)-(\d+)-[0-9a-f]{8}$/.exec(name) ?? [];
    if (!id) continue;
    if (ownerGone(host!, Number(pid))) rmSync(join(readersDir(dataDir), name), { force: true });
    else read.add(id);
  }
  return read;
}
