import { createHash, randomBytes } from 'node:crypto';
import { link, mkdir, readdir, rename, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { viewName, type StoredDataset } from '../table.ts';
import { openDatabase, type Database } from '../db/duckdb.ts';
import { dataLayout } from './layout.ts';
import {
  attributionFor,
  LAYOUT_VERSION,
  licence,
  MANIFEST_FILE,
  type ChangesManifest,
  type Manifest,
  type SnapshotSource,
  type TableManifest,
} from './manifest.ts';
import { verifySnapshot } from './verify.ts';
import { CHANGES_FILE, recordChanges } from './changes.ts';
import { createTableView, type Snapshot } from './read.ts';
import { TableWriter } from './table-writer.ts';

/** Table writers of a snapshot being written, by data set name and table name. */
export type SnapshotTables = Readonly<Record<string, Readonly<Record<string, TableWriter>>>>;

export interface WriteSnapshotOptions {
  readonly dataDir: string;
  readonly datasets: readonly StoredDataset[];
  readonly source: SnapshotSource;
  /** Epoch ms; the sample passes its own clock so that its snapshots are reproducible. */
  readonly createdAt: number;
  readonly log?: (line: string) => void;
  /** An earlier snapshot in the same directory: files that come out byte-identical to its own are hard links to them. */
  readonly previous?: Snapshot;
  /** Record what changed against `previous` in the snapshot (a pull does: see changes.ts). */
  readonly recordChanges?: boolean;
  /**
   * Checks the snapshot, in place under `snapshots/` but not yet current, before it becomes
   * current (a pull opens it the way the server will); if it throws, the snapshot is removed and
   * `current` stays as it was.
   */
  readonly beforeCurrent?: (snapshot: WrittenSnapshot) => Promise<void>;
}

/** What filling a snapshot adds to its manifest besides the tables. */
export type Additions = Partial<Pick<Manifest, 'quarantine' | 'unread' | 'endpoints'>>;

export type WrittenSnapshot = Snapshot;

/**
 * Writes a snapshot under a temporary name, verifies every file against the manifest, then
 * publishes it: renames it into `snapshots/` and swaps the `current` link in one rename. A
 * failure before that leaves `current` as it was. `fill` writes the tables' rows, and may put
 * further files into the staged snapshot directory it is given, listed in what it returns.
 */
export async function writeSnapshot(
  options: WriteSnapshotOptions,
  fill: (tables: SnapshotTables, snapshotDir: string) => Promise<Additions | void>,
): Promise<WrittenSnapshot> {
  const layout = dataLayout(options.dataDir);
  await removeAbandoned(layout.staging);
  const staging = join(layout.staging, `${process.pid}-${randomBytes(4).toString('hex')}`);
  const stagedSnapshot = join(staging, 'snapshot');
  await mkdir(stagedSnapshot, { recursive: true });
  let db: Database | undefined;
  try {
    const tables: Record<string, Record<string, TableWriter>> = {};
    for (const dataset of options.datasets) {
      tables[dataset.name] = {};
      for (const table of Object.values(dataset.tables)) {
        const rowsDir = join(staging, 'rows', dataset.name, table.name);
        await mkdir(rowsDir, { recursive: true });
        tables[dataset.name]![table.name] = new TableWriter(table, `${dataset.name}/${table.name}`, rowsDir);
      }
    }
    const additions = (await fill(tables, stagedSnapshot)) ?? {};

    db = await openDatabase({ memoryLimit: '400MB', spillDir: join(staging, 'spill') });
    const datasets: Manifest['datasets'] = {};
    for (const dataset of options.datasets) {
      const writers = tables[dataset.name]!;
      const finished: Record<string, TableManifest> = {};
      // Tables with derived columns last: they are worked out from the others, read through their views.
      const inOrder = Object.entries(writers).sort(([, a], [, b]) => Number(a.derives) - Number(b.derives));
      for (const [tableName, writer] of inOrder) {
        if (writer.derives) {
          for (const [name, entry] of Object.entries(finished))
            await createTableView(
              db,
              viewName(dataset, name),
              entry.files.map((file) => join(stagedSnapshot, file.path)),
            );
        }
        options.log?.(`writing ${dataset.name}/${tableName}: ${writer.rows.toLocaleString('en')} rows`);
        finished[tableName] = await writer.finish(db, stagedSnapshot);
        if (writer.repeated)
          options.log?.(
            `${dataset.name}/${tableName}: ${writer.repeated.toLocaleString('en')} rows repeated a key already written; each key is kept once, as first written`,
          );
      }
      datasets[dataset.name] = { tables: Object.fromEntries(Object.keys(writers).map((name) => [name, finished[name]!])) };
    }
    if (options.previous) await linkUnchanged(stagedSnapshot, datasets, options.previous);

    const createdAt = new Date(options.createdAt).toISOString();
    const fingerprint = createHash('sha256')
      .update(JSON.stringify({ source: options.source, createdAt, datasets }))
      .digest('hex');
    const id = `${createdAt.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${fingerprint.slice(0, 8)}`;
    const tablesOnly: Manifest = {
      layoutVersion: LAYOUT_VERSION,
      id,
      createdAt,
      source: options.source,
      licence: licence(attributionFor(options.source)),
      datasets,
    };
    let changes: ChangesManifest | undefined;
    if (options.previous && options.recordChanges) {
      try {
        changes = await recordChanges(
          db,
          options.previous,
          { id, dir: stagedSnapshot, cacheDir: layout.cache(id), manifest: tablesOnly },
          options.datasets,
          options.log,
        );
      } catch (error) {
        // What changed is told about the data, not part of it: a snapshot is not lost for want of it.
        options.log?.(`changes since ${options.previous.id} not recorded: ${(error as Error).message.split('\n')[0]}`);
        await rm(join(stagedSnapshot, CHANGES_FILE), { force: true });
      }
    }
    const manifest: Manifest = { ...tablesOnly, ...additions, ...(changes ? { changes } : {}) };
    await writeFile(join(stagedSnapshot, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n');
    const check = await verifySnapshot(stagedSnapshot);
    if (check.mismatches.length)
      throw new Error(`the new snapshot does not match its manifest, so it was not published: ${check.mismatches.slice(0, 5).join('; ')}`);

    const dir = layout.snapshot(id);
    await mkdir(layout.snapshots, { recursive: true });
    // The id fingerprints the content: a snapshot already there under this id is this snapshot.
    const fresh = !(await exists(dir));
    if (fresh) await rename(stagedSnapshot, dir);
    const written = { id, dir, cacheDir: layout.cache(id), manifest };
    try {
      await options.beforeCurrent?.(written);
    } catch (error) {
      if (fresh) await Promise.all([rm(dir, { recursive: true, force: true }), rm(written.cacheDir, { recursive: true, force: true })]);
      throw error;
    }
    await makeCurrent(options.dataDir, id);
    return written;
  } finally {
    db?.close();
    await rm(staging, { recursive: true, force: true });
  }
}

/** Points `current` at a snapshot with one atomic rename of a fresh link. */
export async function makeCurrent(dataDir: string, id: string): Promise<void> {
  const layout = dataLayout(dataDir);
  const link = join(layout.root, `.current-${process.pid}-${randomBytes(4).toString('hex')}`);
  await symlink(join('snapshots', id), link);
  await rename(link, layout.current);
}

/** Replaces each new file that is byte-for-byte a file of `previous` (same path and sha256) with a hard link to it. */
async function linkUnchanged(snapshotDir: string, datasets: Manifest['datasets'], previous: Snapshot): Promise<void> {
  const before = new Map<string, string>();
  for (const dataset of Object.values(previous.manifest.datasets)) {
    for (const table of Object.values(dataset.tables)) for (const file of table.files) before.set(file.path, file.sha256);
  }
  for (const dataset of Object.values(datasets)) {
    for (const table of Object.values(dataset.tables)) {
      for (const file of table.files) {
        if (before.get(file.path) !== file.sha256) continue;
        const target = join(snapshotDir, file.path);
        const source = join(previous.dir, file.path);
        const [a, b] = await Promise.all([stat(target), stat(source).catch(() => undefined)]);
        if (!b || a.ino === b.ino) continue;
        await unlink(target);
        await link(source, target);
      }
    }
  }
}

/** Removes what writers that died (killed, crashed) left in staging; a live writer's directory is left alone. */
async function removeAbandoned(staging: string): Promise<void> {
  const entries = await readdir(staging).catch(() => [] as string[]);
  for (const entry of entries) {
    const pid = Number(entry.split('-')[0]);
    if (Number.isInteger(pid) && pid > 0 && !isAlive(pid)) await rm(join(staging, entry), { recursive: true, force: true });
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );
