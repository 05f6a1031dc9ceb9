import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ownerGone, ownerTag } from '../process-owner.ts';
import { dataLayout } from './layout.ts';

/**
 * Which snapshots running processes read (a server, a build, a query), so that `odsnap prune`
 * leaves them: each reader leaves a mark, `.readers/<id>@<host>-<pid>-<random>`, in the data
 * directory while it reads, and a mark whose process is gone counts for nothing. A data
 * directory that cannot be written (a read-only mount) gets no mark, and cannot be pruned either.
 */

const readersDir = (dataDir: string) => join(dataLayout(dataDir).root, '.readers');

/** Marks snapshot `id` as read by this process; returns what removes the mark (safe to call twice). */
export function markReading(dataDir: string, id: string): () => void {
  const file = join(readersDir(dataDir), `${id}@${ownerTag()}-${randomBytes(4).toString('hex')}`);
  try {
    mkdirSync(readersDir(dataDir), { recursive: true });
    writeFileSync(file, '');
  } catch {
    return () => {};
  }
  return () => rmSync(file, { force: true });
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
