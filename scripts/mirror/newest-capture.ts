import { stat } from 'node:fs/promises';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { Manifest } from '../../core/snapshot/manifest.ts';
import type { Entry } from '../pull/journal-line.ts';
import { Normalizer } from '../pull/normalize.ts';
import { capturedAt, type LiveArchive } from './live-archive.ts';

/** A resource's rows in the newest capture that holds it, as a pull would store them, and when it was made. */
export interface NewestCapture {
  readonly at: number;
  readonly rows: Record<string, unknown>[];
}

/**
 * The newest capture of each live resource in the live archive, for what serves the present (the
 * GBFS feed) to be current after each capture rather than each pull. Its records are normalized as
 * a pull normalizes them, links made relative to the upstream the snapshot was pulled from, so
 * they render as the snapshot's rows do. The newest hour's journal is read again only when it grew.
 */
export class NewestCaptures {
  private seen: { readonly file: string; readonly size: number; readonly entries: readonly Entry[] } | undefined;

  constructor(private readonly archive: LiveArchive) {}

  async of(dataset: Dataset, resource: string, manifest: Manifest): Promise<NewestCapture | undefined> {
    const source = manifest.source;
    if (source.kind !== 'pull') return undefined;
    const entries = await this.newestHour();
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i]!;
      if (entry.dataset !== dataset.name) continue;
      const batches = (entry.batches ?? []).filter((batch) => batch.resource === resource);
      if (!batches.length) continue;
      const normalizer = new Normalizer(dataset, { pulledFrom: source.upstream, ...(source.publicBase ? { publicBase: source.publicBase } : {}) });
      const rows: Record<string, unknown>[] = [];
      for (const batch of batches) {
        normalizer.batch(batch, entry.answers?.[batch.answer], entry.texts?.[batch.answer], (result) => result.ok && rows.push(result.row));
      }
      return { at: capturedAt(entry), rows };
    }
    return undefined;
  }

  private async newestHour(): Promise<readonly Entry[]> {
    const file = await this.archive.newestHourFile();
    if (!file) return [];
    const size = (await stat(file)).size;
    if (this.seen?.file !== file || this.seen.size !== size) this.seen = { file, size, entries: await this.archive.entriesIn(file) };
    return this.seen.entries;
  }
}
