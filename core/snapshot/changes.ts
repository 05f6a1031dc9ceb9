import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { Database } from '../db/duckdb.ts';
import type { StoredDataset } from '../table.ts';
import { diffSnapshots } from './diff.ts';
import type { ChangesManifest } from './manifest.ts';
import type { Snapshot } from './read.ts';
import { sha256Of } from './table-writer.ts';

/**
 * What a pull changed, kept in the snapshot it wrote (`changes.json`, listed in its manifest): the
 * diff against the snapshot before it, with the records of each register (keys added and removed,
 * changed columns with their old and new values) and, for series, counts per day (see
 * TableSpec.changes). Recorded once, when the snapshot is written, so the static tree and the site
 * can publish a history whose earlier snapshots may since have been pruned.
 */

export const CHANGES_FILE = 'changes.json';

const fieldChange = z.object({ old: z.unknown(), new: z.unknown() });
const tableChanges = z.object({
  dataset: z.string(),
  table: z.string(),
  key: z.array(z.string()).nullable(),
  added: z.number().int().nonnegative(),
  removed: z.number().int().nonnegative(),
  changed: z.number().int().nonnegative(),
  reordered: z.number().int().nonnegative(),
  columns: z.record(z.string(), z.number().int()),
  records: z
    .object({
      added: z.array(z.string()),
      removed: z.array(z.string()),
      changed: z.array(z.object({ key: z.string(), fields: z.record(z.string(), fieldChange) })),
      truncated: z.boolean(),
    })
    .optional(),
  days: z.array(z.object({ day: z.string().nullable(), added: z.number().int(), removed: z.number().int(), changed: z.number().int() })).optional(),
});

export const changesSchema = z.object({
  /** The snapshot compared against: the one current when the pull began. */
  from: z.object({ id: z.string(), createdAt: z.string() }),
  to: z.string(),
  tables: z.array(tableChanges),
});

export type SnapshotChanges = z.infer<typeof changesSchema>;
export type TableChanges = z.infer<typeof tableChanges>;

/** Diffs `to` (being written, in `to.dir`) against `from` and writes the result there; returns its manifest entry. */
export async function recordChanges(
  db: Database,
  from: Snapshot,
  to: Snapshot,
  datasets: readonly StoredDataset[],
  log?: (line: string) => void,
): Promise<ChangesManifest> {
  const started = Date.now();
  const diff = await diffSnapshots(db, from, to, datasets, { detail: true });
  const changes = {
    from: { id: from.id, createdAt: from.manifest.createdAt },
    to: to.id,
    // The files compared and the examples are how diff reports; the records say it all here.
    tables: diff.tables.map(({ files: _files, examples: _examples, ...table }) => table),
  };
  const path = join(to.dir, CHANGES_FILE);
  await writeFile(path, JSON.stringify(changes) + '\n');
  const count = (kind: 'added' | 'removed' | 'changed') => diff.tables.reduce((sum, table) => sum + table[kind], 0);
  log?.(
    `changes since ${from.id}: ${count('added').toLocaleString('en')} rows added, ${count('changed').toLocaleString('en')} changed, ${count('removed').toLocaleString('en')} removed (${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
  return { from: from.id, path: CHANGES_FILE, bytes: (await stat(path)).size, sha256: await sha256Of(path) };
}

/** The changes a snapshot recorded, or undefined for one that recorded none (the first of a data directory, a sample). */
export async function readChanges(snapshot: Snapshot): Promise<SnapshotChanges | undefined> {
  const entry = snapshot.manifest.changes;
  if (!entry) return undefined;
  return changesSchema.parse(JSON.parse(await readFile(join(snapshot.dir, entry.path), 'utf8')));
}
