import type { Fetched, Found, RecordPlace } from '../../../datasets/answers/crawling.ts';
import type { Dataset } from '../../../datasets/vocabulary/dataset.ts';
import { escapesIn, type EscapeEvidence } from '../../../datasets/vocabulary/written.ts';
import type { Journal } from '../journal.ts';
import { RawJson, type Batch } from '../journal-line.ts';
import { baseIn } from '../public-base.ts';
import type { Tally } from '../report.ts';
import type { Observations, UnitObserved } from './observations.ts';

/**
 * The units of a crawl's work (a page, a window of a series, a detail) and their journal: a unit
 * already journalled is not fetched again but replayed from its meta, so a killed pull resumes
 * where it stopped; a unit fetched now is journalled once complete, with the answers it got.
 */
export class Units {
  constructor(
    private readonly dataset: Dataset,
    private readonly journal: Journal,
    private readonly tally: Tally,
    private readonly observations: Observations,
    private readonly log: (event: string, fields: Record<string, unknown>) => void,
    private readonly now: () => number,
  ) {}

  has(key: string): boolean {
    return this.journal.has(key);
  }

  /** Runs a unit unless the journal has it (see Crawl.unit). */
  async run<M>(key: string, work: () => Promise<Found<M>>, replay?: (meta: M) => void): Promise<M> {
    const { journal, tally } = this;
    if (journal.has(key)) {
      const meta = journal.meta<M & UnitObserved>(key)!;
      try {
        replay?.(meta);
        this.observations.take(meta);
        tally.done++;
        tally.resumed++;
        return meta;
      } catch (error) {
        this.log('journal-unit-unusable', { key, reason: (error as Error).message, then: 'fetched again' });
      }
    }
    if (journal.full) throw journal.full;
    const found = await work();
    journal.append({ key, meta: found.meta, dataset: this.dataset.name, batches: (found.batches ?? []) as Batch[], answers: found.answers ?? [] });
    this.observations.take(found.meta as UnitObserved);
    tally.done++;
    return found.meta;
  }

  /** A unit's result from its answers (see Crawl.found): kept as the text they came in, with where their records are. */
  found<M extends { records?: number }>(
    answers: Fetched | readonly Fetched[],
    path: string,
    params: Readonly<Record<string, string>>,
    places: readonly RecordPlace[],
    meta: M,
  ): Found<M> {
    const fetchedAt = this.now();
    this.tally.records += meta.records ?? 0;
    const list: readonly Fetched[] = Array.isArray(answers) ? answers : [answers as Fetched];
    // The address the upstream writes links on, as the first record with a uri shows it (see public-base.ts).
    const base = places
      .map((place) => baseIn(this.dataset.resources[place.resource]!, { ...place, params, path, url: list[0]!.url, fetchedAt }, list[0]!.body))
      .find(Boolean);
    // How its strings are escaped where JSON lets a writer choose, as the texts show it.
    const escapes = list.reduce<EscapeEvidence>((evidence, got) => (got.text === undefined ? evidence : escapesIn(got.text, evidence)), {});
    return {
      meta: { ...meta, ...(base ? { base } : {}), ...(Object.keys(escapes).length ? { escapes } : {}) },
      // Kept as the text it came in, but where a step changed what is kept.
      answers: list.map((got) => (got.text === undefined ? got.body : new RawJson(got.text))),
      batches: list.flatMap((got, answer): Batch[] =>
        places.map((place) => ({ ...place, answer, params, path, url: got.url, fetchedAt, ...(got.askedAt === undefined ? {} : { askedAt: got.askedAt }) })),
      ),
    };
  }
}
