import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ownerGone, ownerTag } from '../process-owner.ts';

/**
 * A DuckDB instance's own directory for what does not fit in its memory limit. DuckDB gives its
 * temporary files the same names in every instance (`duckdb_temp_storage_S32K-0.tmp`, …), so two
 * instances spilling into one directory overwrite each other's blocks and read back garbage (a
 * server and a benchmark over one snapshot answered "Cannot resize vector to 281479271743489
 * rows"). Each instance gets `spill-<host>-<pid>-<random>` under a shared parent; directories
 * left by processes of this host that no longer run are removed when the next one is made (see
 * process-owner.ts).
 */
export interface SpillDir {
  readonly path: string;
  /** Synchronous, so it fits the synchronous close of the instance that used it. */
  remove(): void;
}

/** `spill-<host>-<pid>-` and mkdtemp's six characters. */
const OWNED = /^spill-(.+)-(\d+)-[A-Za-z0-9]{6}$/;

export async function ownSpillDir(parent: string): Promise<SpillDir> {
  await removeOrphanedSpillDirs(parent);
  const path = await mkdtemp(join(parent, `spill-${ownerTag()}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * Removes the spill directories under `parent` of this host's processes that no longer run: a
 * process killed or crashed leaves its own behind, which nothing else would remove.
 */
export async function removeOrphanedSpillDirs(parent: string): Promise<void> {
  await mkdir(parent, { recursive: true });
  for (const name of await readdir(parent)) {
    const [, host, pid] = OWNED.exec(name) ?? [];
    if (host && ownerGone(host, Number(pid))) await rm(join(parent, name), { recursive: true, force: true });
  }
}
