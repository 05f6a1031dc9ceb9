import { addDays, utcDayOf } from '../../../core/calendar.ts';
import type { Table } from '../../../core/table.ts';
import type { Fetched, RecordPlace, Span } from '../../../datasets/answers/crawling.ts';
import type { Dataset } from '../../../datasets/vocabulary/dataset.ts';
import type { Journal } from '../journal.ts';
import type { Batch } from '../journal-line.ts';
import { Normalizer } from '../normalize.ts';

/**
 * The rows a crawl reads itself to know what to ask next: the parents a later step fans out over,
 * and the rows of windows asked to learn the upstream's range rule. The snapshot's rows are made
 * from the journal when it is built (see normalize.ts), not here, so a crawl spends its time fetching.
 */
export class CrawlRows {
  private readonly normalizer: Normalizer;
  /** Rows of the resources list steps fetched, which later steps fan out over. */
  private readonly kept = new Map<string, Record<string, unknown>[]>();

  constructor(
    private readonly dataset: Dataset,
    upstreamUrl: string,
    private readonly journal: Journal,
    private readonly now: () => number,
  ) {
    this.normalizer = new Normalizer(dataset, { pulledFrom: upstreamUrl });
  }

  /** The table a resource is stored in. */
  table(resource: string): Table {
    return this.normalizer.table(resource);
  }

  /** The rows of a finished unit's records. */
  ofUnit(unitKey: string): Record<string, unknown>[] {
    const entry = this.journal.read(unitKey)!;
    const rows: Record<string, unknown>[] = [];
    for (const batch of entry.batches ?? []) {
      this.normalizer.batch(batch, entry.answers?.[batch.answer], entry.texts?.[batch.answer], (result) => result.ok && rows.push(result.row));
    }
    return rows;
  }

  /** The rows of answers fetched now (not kept), their records at `place`. */
  inAnswers(answers: readonly Fetched[], path: string, params: Readonly<Record<string, string>>, place: RecordPlace): Record<string, unknown>[] {
    const rows: Record<string, unknown>[] = [];
    answers.forEach((got, answer) => {
      const batch: Batch = { ...place, answer, params, path, url: got.url, fetchedAt: this.now() };
      this.normalizer.batch(batch, got.body, got.text, (result) => result.ok && rows.push(result.row));
    });
    return rows;
  }

  /** Keeps the rows of a finished unit's records of a resource, for later steps to fan out over. */
  keep(unitKey: string, resource: string): void {
    this.kept.set(resource, this.ofUnit(unitKey));
  }

  /** The rows an earlier step kept of a resource. */
  parentsOf(resource: string): Record<string, unknown>[] {
    const rows = this.kept.get(resource);
    if (!rows) throw new Error(`${this.dataset.name}: cannot crawl what depends on ${resource}, which was not fetched`);
    return rows;
  }
}

/** The UTC days a parent row spans, a day wider on each side: spans given in local days reach into the next UTC day. */
export function daysSpanned(row: Record<string, unknown>, span: Span, today: string): [string, string] {
  const day = (value: unknown) => (typeof value === 'number' ? utcDayOf(value) : String(value).slice(0, 10));
  const to = row[span.to] === null || row[span.to] === undefined ? today : day(row[span.to]);
  return [addDays(day(row[span.from]), -1), addDays(to, 1)];
}
