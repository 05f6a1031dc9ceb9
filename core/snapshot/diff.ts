import type { Database } from '../db/duckdb.ts';
import { changesOf, type StoredDataset, type Table } from '../table.ts';
import type { FileManifest, TableManifest } from './manifest.ts';
import type { Snapshot } from './read.ts';
import { diffRows, merged, type RowChanges } from './row-changes.ts';

export type { DayChanges, FieldChange, RecordChanges } from './changed-records.ts';
export { RECORDS_LISTED } from './changed-records.ts';

/**
 * What changed in each table between two snapshots. A file whose sha256 is the same in both
 * manifests holds the same rows in both and is never read: only the files either side changed
 * are, so a day's pull is compared in seconds however long the history. Rows of a keyed table are
 * matched by key: added, removed, or changed (with the columns that changed); a change only in
 * the columns a pull writes about the record (`pulled`, e.g. its place in the upstream's list) is
 * counted apart, as reordered. Rows of a table without a key are compared whole, as multisets.
 */

export interface TableDiff extends RowChanges {
  readonly dataset: string;
  readonly table: string;
  readonly key: readonly string[] | null;
  /** Files compared unread (the same in both), and files read. */
  readonly files: { readonly same: number; readonly read: number };
}

export interface SnapshotDiff {
  readonly from: string;
  readonly to: string;
  readonly tables: readonly TableDiff[];
}

export interface DiffOptions {
  readonly dataset?: string;
  readonly onTable?: (name: string) => void;
  /** Also list the records (or count the days) each table's changes are published as (see TableSpec.changes). */
  readonly detail?: boolean;
}

export async function diffSnapshots(
  db: Database,
  from: Snapshot,
  to: Snapshot,
  datasets: readonly StoredDataset[],
  options: DiffOptions = {},
): Promise<SnapshotDiff> {
  const tables: TableDiff[] = [];
  const names = [...new Set([...Object.keys(from.manifest.datasets), ...Object.keys(to.manifest.datasets)])].filter(
    (name) => options.dataset === undefined || name === options.dataset,
  );
  for (const name of names) {
    const definition = datasets.find((dataset) => dataset.name === name);
    const tableNames = [...new Set([...Object.keys(from.manifest.datasets[name]?.tables ?? {}), ...Object.keys(to.manifest.datasets[name]?.tables ?? {})])];
    for (const table of tableNames) {
      options.onTable?.(`${name}/${table}`);
      tables.push(await diffTable(db, name, table, side(from, name, table), side(to, name, table), definition?.tables[table], options.detail ?? false));
    }
  }
  return { from: from.id, to: to.id, tables };
}

interface Side {
  readonly manifest?: TableManifest;
  /** Absolute paths, by the file's path in the snapshot. */
  readonly files: ReadonlyMap<string, FileManifest & { readonly absolute: string }>;
}

function side(snapshot: Snapshot, dataset: string, table: string): Side {
  const manifest = snapshot.manifest.datasets[dataset]?.tables[table];
  return { manifest, files: new Map((manifest?.files ?? []).map((file) => [file.path, { ...file, absolute: `${snapshot.dir}/${file.path}` }])) };
}

async function diffTable(
  db: Database,
  dataset: string,
  table: string,
  from: Side,
  to: Side,
  definition: Table | undefined,
  detail: boolean,
): Promise<TableDiff> {
  const published = detail && definition ? changesOf(definition) : 'counts';
  const same = [...from.files.values()].filter((file) => to.files.get(file.path)?.sha256 === file.sha256);
  const sameSet = new Set(same.map((file) => file.path));
  const changedFiles = (side: Side) => [...side.files.values()].filter((file) => !sameSet.has(file.path));
  const [before, after] = [changedFiles(from), changedFiles(to)];
  const manifest = (to.manifest ?? from.manifest)!;
  let diff: TableDiff = {
    dataset,
    table,
    key: manifest.key,
    files: { same: same.length, read: before.length + after.length },
    added: 0,
    removed: 0,
    changed: 0,
    reordered: 0,
    columns: {},
    examples: { added: [], removed: [], changed: [] },
    ...(published === 'records' ? { records: { added: [], removed: [], changed: [], truncated: false } } : published === 'days' ? { days: [] } : {}),
  };
  // Where every partition is of a key column (or, without a key, of the row), a row can only be in
  // the file at the same path on either side: those pairs are compared one at a time, so a day's
  // readings of the city are not held all at once.
  const byPath = manifest.partitionBy.length > 0 && manifest.partitionBy.every((partition) => !manifest.key || manifest.key.includes(partition.column));
  const groups = byPath ? groupedByPath(before, after) : [{ before, after }];
  for (const group of groups) {
    if (!group.before.length && !group.after.length) continue;
    diff = merged(
      diff,
      await diffRows(
        db,
        group.before.map((f) => f.absolute),
        group.after.map((f) => f.absolute),
        manifest.key,
        definition,
        published,
      ),
    );
  }
  return diff;
}

/** Files of both sides with the same path together, in path order. */
function groupedByPath<F extends { readonly path: string }>(before: readonly F[], after: readonly F[]): { before: F[]; after: F[] }[] {
  const groups = new Map<string, { before: F[]; after: F[] }>();
  const groupOf = (path: string) => groups.get(path) ?? groups.set(path, { before: [], after: [] }).get(path)!;
  for (const file of before) groupOf(file.path).before.push(file);
  for (const file of after) groupOf(file.path).after.push(file);
  return [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, group]) => group);
}
