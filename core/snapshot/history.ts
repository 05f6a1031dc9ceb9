import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { currentSnapshotId, dataLayout } from './layout.ts';
import { readManifest, type Manifest } from './manifest.ts';

/**
 * The snapshots a data directory keeps, and what each costs on disk. A pull hard-links the files
 * it did not change from the snapshot before (and a build links Parquet files into its tree), so
 * a file takes its bytes once however many link it: a snapshot's own bytes are those of files
 * linked nowhere else (what removing it would free), its shared bytes those of files it links
 * with another snapshot or a tree.
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

const sampleText = (sample: { scale: string; seed: number; until: string }) => `sample ${sample.scale}, seed ${sample.seed}, until ${sample.until}`;

/** Where a snapshot came from, for a person: an upstream's address, or the sample city (generated, or pulled from odsnap serving it on a port long gone). */
export const sourceOf = (manifest: Manifest): string =>
  manifest.source.kind === 'sample'
    ? sampleText(manifest.source)
    : manifest.source.sample
      ? `${sampleText(manifest.source.sample)}, pulled through v1`
      : manifest.source.upstream;

/** Files by inode: size, how many links the file has, and how many of them were seen. */
export type Links = Map<string, { readonly bytes: number; readonly links: number; seen: number }>;

/** Adds the files under `dir` to `into`, each by inode: a file linked twice under it is counted once, seen twice. */
export async function linksUnder(dir: string, into: Links = new Map()): Promise<Links> {
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await linksUnder(path, into);
    else if (entry.isFile()) {
      const stat = await lstat(path, { bigint: true });
      const inode = `${stat.dev}:${stat.ino}`;
      const known = into.get(inode);
      if (known) known.seen++;
      else into.set(inode, { bytes: Number(stat.size), links: Number(stat.nlink), seen: 1 });
    }
  }
  return into;
}

/** A snapshot directory of the data directory, with its manifest, or why it has none that can be read. */
export type Listed = { readonly id: string; readonly current: boolean } & ({ readonly manifest: Manifest } | { readonly error: string });

/** Every snapshot directory of the data directory, oldest first (ids begin with their time), reading manifests only. */
export async function listSnapshots(dataDir: string): Promise<Listed[]> {
  const layout = dataLayout(dataDir);
  const ids = (await readdir(layout.snapshots, { withFileTypes: true }).catch(() => []))
    .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
    .map((entry) => entry.name)
    .sort();
  const current = await currentSnapshotId(dataDir);
  return Promise.all(
    ids.map(async (id) => {
      try {
        return { id, current: id === current, manifest: await readManifest(layout.snapshot(id)) };
      } catch (error) {
        return { id, current: id === current, error: (error as Error).message };
      }
    }),
  );
}

/** Every snapshot of the data directory, oldest first, with what it takes on disk (every file of every snapshot looked at). */
export async function readHistory(dataDir: string): Promise<History> {
  const layout = dataLayout(dataDir);
  const everyFile: Links = new Map();
  const snapshots: SnapshotSummary[] = [];
  const unreadable: History['unreadable'][number][] = [];
  for (const listed of await listSnapshots(dataDir)) {
    if ('error' in listed) {
      unreadable.push({ id: listed.id, error: listed.error });
      continue;
    }
    const { id, current, manifest } = listed;
    const files = await linksUnder(layout.snapshot(id));
    let own = 0;
    let shared = 0;
    for (const [inode, file] of files) {
      // Its own when every link the file has is in this snapshot: removing it frees the file.
      if (file.seen === file.links) own += file.bytes;
      else shared += file.bytes;
      everyFile.set(inode, file);
    }
    const rows = Object.fromEntries(
      Object.entries(manifest.datasets).map(([name, dataset]) => [name, Object.values(dataset.tables).reduce((sum, table) => sum + table.rows, 0)]),
    );
    // Files as verify counts them: the data files its manifest lists (the bytes count the manifest too).
    const dataFiles = Object.values(manifest.datasets).reduce(
      (sum, dataset) => sum + Object.values(dataset.tables).reduce((n, table) => n + table.files.length, 0),
      0,
    );
    snapshots.push({ id, current, createdAt: manifest.createdAt, source: sourceOf(manifest), rows, files: dataFiles, bytes: { own, shared } });
  }
  return { snapshots, unreadable, bytes: [...everyFile.values()].reduce((sum, file) => sum + file.bytes, 0) };
}
