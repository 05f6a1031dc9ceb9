import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { Journal } from './journal.ts';
import { RawJson, type Batch, type Entry } from './journal-line.ts';
import type { Previous } from './previous.ts';

/**
 * Live captures made between pulls (a long-running mirror's live archive): each a unit as a pull's
 * own capture journals it, whose rows the new snapshot's live tables take.
 */
export type Captures = (dataset: Dataset, after: number) => AsyncIterable<Entry>;

/**
 * Copies into the pull's journal the captures of a data set that its previous snapshot does not
 * hold: those made after the latest time its tables hold. So a capture is committed once, whether
 * the pull that committed it was resumed, or the mirror was killed after it. Returns how many.
 */
export async function commitCaptures(journal: Journal, dataset: Dataset, previous: Previous | undefined, captures: Captures): Promise<number> {
  // Each table's latest time, read from the manifest once rather than for every capture.
  const latestOf = new Map(Object.keys(dataset.tables).map((table) => [table, latestIn(previous, dataset, table)]));
  const latest = (tables: Iterable<string>) => Math.max(-Infinity, ...[...tables].map((table) => latestOf.get(table) ?? -Infinity));
  // A capture still to commit was fetched after the previous pull started, but for one in flight
  // then: an hour before is bound enough, and spares reading the whole archive.
  const after = previous ? Date.parse(previous.snapshot.manifest.createdAt) - 3_600_000 : -Infinity;
  let copied = 0;
  for await (const entry of captures(dataset, after)) {
    const batches = (entry.batches ?? []) as Batch[];
    const at = batches[0]?.fetchedAt;
    if (at === undefined || journal.has(entry.key)) continue;
    // A capture's rows all bear its time; it is committed when a table it fills holds that time or later.
    if (at <= latest(new Set(batches.map((batch) => dataset.resources[batch.resource]!.table)))) continue;
    journal.append({ key: entry.key, meta: entry.meta, dataset: dataset.name, batches, answers: (entry.texts ?? []).map((text) => new RawJson(text)) });
    copied++;
  }
  return copied;
}

/** The latest time a table of the previous snapshot holds (epoch ms), from its manifest; -Infinity when none. */
function latestIn(previous: Previous | undefined, dataset: Dataset, table: string): number {
  const entry = previous?.snapshot.manifest.datasets[dataset.name]?.tables[table];
  if (!entry?.timeColumn) return -Infinity;
  return Math.max(-Infinity, ...entry.files.flatMap((file) => (file.max === null ? [] : [Date.parse(file.max)])));
}
