import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { currentSnapshotId, dataLayout } from './layout.ts';
import { readManifest, type Manifest } from './manifest.ts';

/**
 * The snapshots a data directory keeps, and what each costs on disk. A pull hard-links the files
 * it did not change from the snapshot before, so a file belongs to every snapshot that links it
 * and takes its bytes once: a snapshot's own bytes are those of files no other snapshot links
 * (what removing it would free), its shared bytes those of files it links with another.
 */

export interface SnapshotSummary {
  readonly id: string;
  readonly current: boolean;
  readonly createdAt: string;
  /** Where its data came from: the upstream it was pulled from, or the sample's settings. */
  readonly source: string;
  /** Rows by data set. */
  readonly rows: Readonly<Record<string, number>>;
  readonly files: number;
  readonly bytes: { readonly own: number; readonly shared: number };
}

export interface History {
  readonly snapshots: readonly SnapshotSummary[];
  /** Snapshot directories whose manifest cannot be read (a snapshot is published only once it has one). */
  readonly unreadable: readonly { readonly id: string; readonly error: string }[];
  /** What all the snapshots take on disk, each file once however many link it. */
  readonly bytes: number;
}

export const sourceOf = (manifest: Manifest): string =>
  manifest.source.kind === 'sample' ? `sample ${manifest.source.scale}, seed ${manifest.source.seed}, until ${manifest.source.until}` : manifest.source.upstream;

/** A file of a snapshot, by the inode its links share. */
interface FileOnDisk {
  readonly inode: string;
  readonly bytes: number;
}

async function filesUnder(dir: string): Promise<FileOnDisk[]> {
  const found: FileOnDisk[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await filesUnder(path)));
    else if (entry.isFile()) {
      const stat = await lstat(path, { bigint: true });
      found.push({ inode: `${stat.dev}:${stat.ino}`, bytes: Number(stat.size) });
    }
  }
  return found;
}

/** Every snapshot of the data directory, oldest first (ids begin with their time). */
export async function readHistory(dataDir: string): Promise<History> {
  const layout = dataLayout(dataDir);
  const ids = (await readdir(layout.snapshots, { withFileTypes: true }).catch(() => [])).filter((entry) => entry.isDirectory() || entry.isSymbolicLink()).map((entry) => entry.name).sort();
  const current = await currentSnapshotId(dataDir);
  const read = await Promise.all(
    ids.map(async (id) => {
      const dir = layout.snapshot(id);
      try {
        return { id, manifest: await readManifest(dir), files: await filesUnder(dir) };
      } catch (error) {
        return { id, error: (error as Error).message };
      }
    }),
  );
  const snapshotsOf = new Map<string, Set<string>>();
  const bytesOf = new Map<string, number>();
  for (const snapshot of read) {
    for (const file of snapshot.files ?? []) {
      snapshotsOf.set(file.inode, (snapshotsOf.get(file.inode) ?? new Set()).add(snapshot.id));
      bytesOf.set(file.inode, file.bytes);
    }
  }
  const snapshots: SnapshotSummary[] = [];
  const unreadable: History['unreadable'][number][] = [];
  for (const snapshot of read) {
    if (!snapshot.manifest) {
      unreadable.push({ id: snapshot.id, error: snapshot.error! });
      continue;
    }
    const inodes = new Set(snapshot.files.map((file) => file.inode));
    let own = 0;
    let shared = 0;
    for (const inode of inodes) {
      if (snapshotsOf.get(inode)!.size > 1) shared += bytesOf.get(inode)!;
      else own += bytesOf.get(inode)!;
    }
    const rows = Object.fromEntries(Object.entries(snapshot.manifest.datasets).map(([name, dataset]) => [name, Object.values(dataset.tables).reduce((sum, table) => sum + table.rows, 0)]));
    snapshots.push({ id: snapshot.id, current: snapshot.id === current, createdAt: snapshot.manifest.createdAt, source: sourceOf(snapshot.manifest), rows, files: inodes.size, bytes: { own, shared } });
  }
  return { snapshots, unreadable, bytes: [...bytesOf.values()].reduce((sum, bytes) => sum + bytes, 0) };
}
