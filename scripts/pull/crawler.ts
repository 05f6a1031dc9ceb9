import { addDays, utcDayOf } from '../../core/calendar.ts';
import type { Table } from '../../core/table.ts';
import type { ZoneOffsets } from '../../core/zoned-time.ts';
import { kindOf } from '../../datasets/answers/index.ts';
import { ProtocolError, type Crawl, type CrawlLimits, type FetchOptions, type Fetched, type Found, type Observed, type RangeFacts, type RecordPlace, type Span, type TablePlan } from '../../datasets/answers/crawling.ts';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { Endpoint } from '../../datasets/vocabulary/endpoint.ts';
import type { EnvelopeSeen, NextSeen } from '../../datasets/answers/envelope.ts';
import { escapesIn, mergedEscapes, type EscapeEvidence } from '../../datasets/vocabulary/written.ts';
import { JournalFull, RawJson, type Batch, type Journal } from './journal.ts';
import { Normalizer } from './normalize.ts';
import type { Previous } from './previous.ts';
import { baseIn } from './public-base.ts';
import type { Upstream } from './upstream.ts';

/**
 * Runs one data set's crawl plan against an upstream: each step names an endpoint, whose answer's
 * kind crawls it (see datasets/answers/, `crawl`) through what this class gives it. Work is cut
 * into units (a page, a window of a series, a detail), each recorded in the journal with the
 * answers it got once complete; a unit already there is not fetched again, so a killed pull
 * resumes where it stopped. Records are not parsed here (the build does it, see normalize.ts), so
 * a crawl spends its time fetching. What each table of the new snapshot takes from the previous
 * one (carried details, earlier readings) is returned as a plan per table.
 */

export type { TablePlan } from '../../datasets/answers/crawling.ts';

/** What an endpoint's answers showed beyond their records (see Observed). */
/** What an endpoint's answers showed beyond their records, as this pull saw them (see Observed); pulled-snapshot.ts learns from it. */
export interface EndpointObservations {
  defaults?: Record<string, string>;
  envelopes?: EnvelopeSeen[];
  nexts?: NextSeen[];
  range?: RangeFacts;
  zoneOffsets?: Partial<ZoneOffsets>;
}

/**
 * Whether a failure may have its cause in what the journal holds, so that every pull resuming it
 * would fail the same way: an answer v1 does not allow, a limit reached, or a crash (an error of
 * the language itself: code meeting data it was not written for). Failures of the network, and
 * those they bring about (a step whose list could not be fetched), leave the journal to resume.
 */
export const spoilsJournal = (error: unknown): boolean =>
  error instanceof ProtocolError || error instanceof JournalFull || error instanceof TypeError || error instanceof RangeError || error instanceof SyntaxError || error instanceof ReferenceError;

export interface Tally {
  requests: number;
  retries: number;
  /** Records received (validated when the snapshot is built). */
  records: number;
  quarantined: number;
  /** Units of work known so far and finished, fetched or found in the journal. */
  planned: number;
  done: number;
  resumed: number;
}

export interface CrawlOptions {
  readonly dataset: Dataset;
  readonly upstream: Upstream;
  readonly upstreamUrl: string;
  readonly journal: Journal;
  readonly previous: Previous | undefined;
  /** Epoch ms the pull started: its "today" (UTC) and the clock of its windows. */
  readonly startedAt: number;
  /** Units in flight at once. */
  readonly parallel: number;
  readonly limits: CrawlLimits;
  readonly tally: Tally;
  readonly log: (event: string, fields: Record<string, unknown>) => void;
}

export class DatasetCrawl implements Crawl {
  readonly plans = new Map<string, TablePlan>();
  readonly failures: string[] = [];
  /** Why the journal cannot be resumed, once a failure may have its cause in it (see spoilsJournal). */
  unresumable: string | undefined;
  readonly today: string;
  private readonly normalizer: Normalizer;
  /** Rows of the resources list steps fetched, which later steps fan out over. */
  private readonly fetched = new Map<string, Record<string, unknown>[]>();
  /** What the endpoints' answers showed beyond their records (see Observed), by endpoint; an envelope's text, or null once two differ. */
  private readonly observations = new Map<string, EndpointObservations>();

  constructor(private readonly options: CrawlOptions) {
    this.normalizer = new Normalizer(options.dataset, { pulledFrom: options.upstreamUrl });
    this.today = utcDayOf(options.startedAt);
  }

  get dataset(): Dataset {
    return this.options.dataset;
  }

  get limits(): CrawlLimits {
    return this.options.limits;
  }

  async run(): Promise<void> {
    for (const step of this.dataset.crawl) {
      try {
        const endpoint = this.endpoint(step.path);
        await kindOf(endpoint.answer).crawl!.run(this, step, endpoint, endpoint.answer);
      } catch (error) {
        if (this.stopped) throw this.stopped;
        this.fail(error);
      }
    }
  }

  /** What ends the whole pull at once: the upstream found down, or the journal full. */
  private get stopped(): Error | undefined {
    return this.options.upstream.downError ?? this.options.journal.full;
  }

  endpoint(path: string): Endpoint {
    return this.dataset.endpoints.find((e) => e.path === path)!;
  }

  table(resource: string): Table {
    return this.normalizer.table(resource);
  }

  plan(table: string, plan: TablePlan): void {
    this.plans.set(table, plan);
  }

  appendOrReplace(series: readonly string[], time: string, cutoffs: ReadonlyMap<string, number>): TablePlan {
    return this.options.previous ? { kind: 'append', series, time, cutoffs } : { kind: 'replace' };
  }

  planned(units: number): void {
    this.options.tally.planned += units;
  }

  done(): void {
    this.options.tally.done++;
  }

  has(unitKey: string): boolean {
    return this.options.journal.has(unitKey);
  }

  async unit<M>(key: string, work: () => Promise<Found<M>>, replay?: (meta: M) => void): Promise<M> {
    const { journal, tally } = this.options;
    if (journal.has(key)) {
      const meta = journal.meta<M & { observed?: Observed; escapes?: EscapeEvidence }>(key)!;
      try {
        replay?.(meta);
        if (meta?.observed) this.observe(meta.observed);
        if (meta?.escapes) this.escapes = mergedEscapes(this.escapes, meta.escapes);
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
    if (found.meta.observed) this.observe(found.meta.observed);
    const escapes = (found.meta as { escapes?: EscapeEvidence }).escapes;
    if (escapes) this.escapes = mergedEscapes(this.escapes, escapes);
    tally.done++;
    return found.meta;
  }

  /** How the upstream's answers escaped their strings, as far as this crawl saw (see escapesIn). */
  escapes: EscapeEvidence = {};

  /** What the data set's endpoints showed beyond their records, by endpoint. */
  observed(): Record<string, EndpointObservations> {
    return Object.fromEntries(this.observations);
  }

  private observe({ endpoint, defaults, envelopes, nexts, range, zoneOffsets }: Observed): void {
    const entry = this.observations.get(endpoint) ?? {};
    if (defaults) entry.defaults = { ...entry.defaults, ...defaults };
    if (range) entry.range = { ...entry.range, ...range };
    if (zoneOffsets) entry.zoneOffsets = { ...entry.zoneOffsets, ...zoneOffsets };
    if (envelopes?.length) (entry.envelopes ??= []).push(...envelopes);
    if (nexts?.length) (entry.nexts ??= []).push(...nexts);
    this.observations.set(endpoint, entry);
  }

  get(path: string, query: Readonly<Record<string, string | number>>, options: FetchOptions): Promise<Fetched> {
    return this.options.upstream.get(path, { ...query }, { ...options, onAttempt: this.countRequest });
  }

  found<M extends { records?: number }>(answers: Fetched | readonly Fetched[], path: string, params: Readonly<Record<string, string>>, places: readonly RecordPlace[], meta: M): Found<M> {
    const fetchedAt = Date.now();
    this.options.tally.records += meta.records ?? 0;
    const list: readonly Fetched[] = Array.isArray(answers) ? answers : [answers as Fetched];
    // The address the upstream writes links on, as the first record with a uri shows it (see public-base.ts).
    const base = places.map((place) => baseIn(this.dataset.resources[place.resource]!, { ...place, params, path, url: list[0]!.url, fetchedAt }, list[0]!.body)).find(Boolean);
    // How its strings are escaped where JSON lets a writer choose, as the texts show it.
    const escapes = list.reduce<EscapeEvidence>((evidence, got) => (got.text === undefined ? evidence : escapesIn(got.text, evidence)), {});
    return {
      meta: { ...meta, ...(base ? { base } : {}), ...(Object.keys(escapes).length ? { escapes } : {}) },
      // Kept as the text it came in, but where a step changed what is kept.
      answers: list.map((got) => (got.text === undefined ? got.body : new RawJson(got.text))),
      batches: list.flatMap((got, answer): Batch[] => places.map((place) => ({ ...place, answer, params, path, url: got.url, fetchedAt }))),
    };
  }

  async each<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < items.length) {
        const item = items[next++]!;
        try {
          await work(item);
        } catch (error) {
          if (this.stopped) throw this.stopped;
          this.fail(error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.parallel, items.length) }, worker));
  }

  log(event: string, fields: Record<string, unknown>): void {
    this.options.log(event, fields);
  }

  failure(message: string): void {
    this.failures.push(message);
  }

  keepRows(unitKey: string, resource: string): void {
    this.fetched.set(resource, this.rowsOf(unitKey));
  }

  rowsOf(unitKey: string): Record<string, unknown>[] {
    const entry = this.options.journal.read(unitKey)!;
    const rows: Record<string, unknown>[] = [];
    for (const batch of entry.batches ?? []) {
      this.normalizer.batch(batch, entry.answers?.[batch.answer], entry.texts?.[batch.answer], (result) => result.ok && rows.push(result.row));
    }
    return rows;
  }

  rowsIn(answers: readonly Fetched[], path: string, params: Readonly<Record<string, string>>, place: RecordPlace): Record<string, unknown>[] {
    const rows: Record<string, unknown>[] = [];
    answers.forEach((got, answer) => {
      const batch: Batch = { ...place, answer, params, path, url: got.url, fetchedAt: Date.now() };
      this.normalizer.batch(batch, got.body, got.text, (result) => result.ok && rows.push(result.row));
    });
    return rows;
  }

  parentsOf(resource: string): Record<string, unknown>[] {
    const rows = this.fetched.get(resource);
    if (!rows) throw new Error(`${this.dataset.name}: cannot crawl what depends on ${resource}, which was not fetched`);
    return rows;
  }

  watermarks(table: string, columns: readonly string[], time: string): Promise<Map<string, number>> {
    return this.options.previous?.watermarks(this.dataset, table, columns, time) ?? Promise.resolve(new Map<string, number>());
  }

  fingerprints(resource: string, id: string): Promise<Map<string, string>> {
    return this.options.previous?.fingerprints(this.dataset, resource, id, this.options.upstreamUrl) ?? Promise.resolve(new Map<string, string>());
  }

  /** The UTC days a parent row spans, a day wider on each side: spans given in local days reach into the next UTC day. */
  span(row: Record<string, unknown>, span: Span): [string, string] {
    const day = (value: unknown) => (typeof value === 'number' ? utcDayOf(value) : String(value).slice(0, 10));
    const to = row[span.to] === null || row[span.to] === undefined ? this.today : day(row[span.to]);
    return [addDays(day(row[span.from]), -1), addDays(to, 1)];
  }

  /** The data set's share of the requests the upstream client sends, retries included, as its total counts them. */
  private readonly countRequest = () => {
    this.options.tally.requests++;
  };

  private fail(error: unknown): void {
    const message = (error as Error).message ?? String(error);
    this.failures.push(message);
    if (spoilsJournal(error)) this.unresumable ??= message;
    this.options.log('failed', { dataset: this.dataset.name, error: message });
  }
}
