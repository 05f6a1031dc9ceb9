import { addDays, dayToUtcMs, utcDayOf } from '../../core/calendar.ts';
import type { CapturePart, CrawlStep, Span } from '../../datasets/vocabulary/crawl.ts';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { Endpoint } from '../../datasets/vocabulary/endpoint.ts';
import { fingerprint } from './fingerprint.ts';
import { RawJson, type Batch, type Journal } from './journal.ts';
import { Normalizer } from './normalize.ts';
import { seriesKey, type Previous } from './previous.ts';
import type { Answer, GetOptions, Upstream } from './upstream.ts';

/**
 * Runs one data set's crawl plan against an upstream. Work is cut into units (a page, a window of
 * a series, a detail), each recorded in the journal with the answers it got once complete; a unit
 * already there is not fetched again, so a killed pull resumes where it stopped. Records are not
 * parsed here (the build does it, see normalize.ts), so a crawl spends its time fetching. What each
 * table of the new snapshot takes from the previous one (carried details, earlier readings) is
 * returned as a plan per table.
 */

/** How a table of the new snapshot is made from this pull's rows and the previous snapshot. */
export type TablePlan =
  /** This pull's rows are the whole table. */
  | { readonly kind: 'replace' }
  /** This pull's rows, plus the previous rows whose key (column `key`) is in `carry`: details unchanged since. */
  | { readonly kind: 'refresh'; readonly key: string; readonly carry: ReadonlySet<string> }
  /**
   * The previous rows, plus this pull's. Series in `cutoffs` (by seriesKey of `series` columns)
   * were fetched again from that instant on, so their previous rows from then on are replaced.
   */
  | { readonly kind: 'append'; readonly series: readonly string[]; readonly time: string; readonly cutoffs: ReadonlyMap<string, number> };

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
  readonly tally: Tally;
  readonly log: (event: string, fields: Record<string, unknown>) => void;
}

/** Days re-fetched before a series' latest reading, for data that arrives late. */
export const OVERLAP_DAYS = 2;
/** Rounds of reading an offset-paged list before a gap against its total counts as a failure. */
const MAX_ROUNDS = 3;

/** What a unit found: its answers, where the records are in them, and what later units need to know. */
interface Found<M> {
  readonly meta: M;
  readonly answers?: readonly (RawJson | unknown)[];
  readonly batches?: readonly Batch[];
}

type BatchPlace = Omit<Batch, 'answer' | 'params' | 'path' | 'url' | 'fetchedAt'>;

export class DatasetCrawl {
  readonly plans = new Map<string, TablePlan>();
  readonly failures: string[] = [];
  private readonly normalizer: Normalizer;
  private readonly today: string;
  /** Rows of the resources list steps fetched, which later steps fan out over. */
  private readonly fetched = new Map<string, Record<string, unknown>[]>();

  constructor(private readonly options: CrawlOptions) {
    this.normalizer = new Normalizer(options.dataset, options.upstreamUrl);
    this.today = utcDayOf(options.startedAt);
  }

  async run(): Promise<void> {
    for (const step of this.options.dataset.crawl) {
      try {
        await this.step(step);
      } catch (error) {
        if (this.options.upstream.downError) throw this.options.upstream.downError;
        this.fail(error);
      }
    }
  }

  private step(step: CrawlStep): Promise<void> {
    switch (step.kind) {
      case 'documents':
        return this.documents();
      case 'list':
        return this.list(step.path);
      case 'pages':
        return this.pages(step);
      case 'windows':
        return this.windows(step);
      case 'series':
        return this.series(step);
      case 'capture':
        return this.capture(step);
    }
  }

  // ---- steps -------------------------------------------------------------------------------

  private async documents(): Promise<void> {
    const endpoints = this.options.dataset.endpoints.filter((e) => e.answer.kind === 'document');
    this.planned(endpoints.length);
    await this.each(endpoints, async (endpoint) => {
      const resource = resourceOf(endpoint);
      this.plans.set(this.normalizer.table(resource).name, { kind: 'replace' });
      await this.unit(`GET ${endpoint.fullPath}`, async () => {
        const got = await this.get(endpoint.fullPath, {}, { shape: objectShape });
        return this.found(got, endpoint.path, {}, [{ resource, document: true }], { records: 1 });
      });
    });
  }

  private async list(path: string): Promise<void> {
    const endpoint = this.endpoint(path);
    const resource = resourceOf(endpoint);
    this.plans.set(this.normalizer.table(resource).name, { kind: 'replace' });
    this.planned(1);
    const key = `GET ${endpoint.fullPath}`;
    await this.unit(key, async () => {
      const got = await this.get(endpoint.fullPath, {}, { shape: (body) => (Array.isArray(body) ? undefined : 'not an array') });
      return this.found(got, path, {}, [{ resource }], { records: (got.body as unknown[]).length });
    });
    // Later steps fan out over these rows, so they are normalized now (lists are short).
    const entry = this.options.journal.read(key)!;
    const rows: Record<string, unknown>[] = [];
    for (const batch of entry.batches ?? []) {
      this.normalizer.batch(batch, entry.answers?.[batch.answer], (result) => result.ok && rows.push(result.row));
    }
    this.fetched.set(resource, rows);
  }

  /**
   * Offset pages, read again until the ids seen cover the total the upstream reports: a list that
   * changes while it is paged (an item moving to a page already read) leaves a gap one round
   * cannot see. Items are kept the first time their id is seen.
   */
  private async pages(step: Extract<CrawlStep, { kind: 'pages' }>): Promise<void> {
    const endpoint = this.endpoint(step.path);
    const resource = resourceOf(endpoint);
    const detail = step.detail ? this.endpoint(step.detail) : undefined;
    /** Every id seen, with the listed item's fingerprint when details are fetched. */
    const seen = new Map<string, string | null>();
    let total = 0;
    const page = async (round: number, offset: number) => {
      const meta = await this.unit<PageMeta>(
        `GET ${endpoint.fullPath}?limit=${step.limit}&offset=${offset} round ${round}`,
        async () => {
          const got = await this.get(endpoint.fullPath, { limit: step.limit, offset }, { shape: pageShape });
          const body = got.body as { items: unknown[]; pagination: { total: number } };
          const fresh = body.items.filter((item) => !seen.has(idOf(item, step.id)));
          const items = fresh.map((item): [string, string | null] => [idOf(item, step.id), detail ? fingerprint(item) : null]);
          for (const [id, print] of items) seen.set(id, print);
          // An answer with items seen before is stored without them; the usual one as it came.
          const answer = fresh.length === body.items.length ? got : { ...got, body: { ...body, items: fresh }, text: undefined };
          const batch: BatchPlace = { resource, field: 'items', ...(detail ? { checkOnly: true } : {}) };
          return this.found(answer, step.path, {}, [batch], { total: body.pagination.total, items, records: fresh.length });
        },
        (meta) => meta.items.forEach(([id, print]) => seen.set(id, print)),
      );
      total = Math.max(total, meta.total);
      return meta;
    };

    for (let round = 1; round <= MAX_ROUNDS; round++) {
      this.planned(1);
      total = (await page(round, 0)).total;
      const offsets: number[] = [];
      for (let offset = step.limit; offset < total; offset += step.limit) offsets.push(offset);
      this.planned(offsets.length);
      await this.each(offsets, (offset) => page(round, offset).then(() => undefined));
      // A list that grew while it was paged has pages past the first answer's total.
      for (let offset = (offsets.at(-1) ?? 0) + step.limit; offset < total; offset += step.limit) {
        this.planned(1);
        await page(round, offset);
      }
      if (seen.size >= total) break;
      this.options.log('gap', { dataset: this.options.dataset.name, path: step.path, round, seen: seen.size, total });
      if (round === MAX_ROUNDS) this.failures.push(`${endpoint.fullPath}: ${seen.size} distinct items after ${round} rounds, the upstream reports ${total}`);
    }

    if (!detail) {
      this.plans.set(this.normalizer.table(resource).name, { kind: 'replace' });
      return;
    }
    const detailResource = resourceOf(detail);
    const table = this.normalizer.table(detailResource);
    const previous = this.options.previous ? await this.options.previous.fingerprints(this.options.dataset, resource, step.id, this.options.upstreamUrl) : new Map<string, string>();
    const carry = new Set<string>();
    const wanted: string[] = [];
    for (const [id, print] of seen) {
      if (print !== null && previous.get(id) === print) carry.add(id);
      else wanted.push(id);
    }
    this.plans.set(table.name, { kind: 'refresh', key: table.key![0]!, carry });
    this.options.log('details', { dataset: this.options.dataset.name, path: step.detail, fetch: wanted.length, unchanged: carry.size });
    this.planned(wanted.length);
    await this.each(wanted, async (id) => {
      const path = detail.fullPath.replace(`{${step.id}}`, encodeURIComponent(id));
      await this.unit<{ records?: number; gone?: boolean }>(`GET ${path}`, async () => {
        let got = await this.get(path, {}, { notFound: true, shape: objectShape });
        // Listed a moment ago: a 404 is asked again once before the item counts as gone (deleted since), and said.
        if (got.status === 404) got = await this.get(path, {}, { notFound: true, shape: objectShape });
        if (got.status === 404) {
          this.options.log('gone', { dataset: this.options.dataset.name, path, listedAs: id });
          return { meta: { gone: true } };
        }
        return this.found(got, detail.path, { [step.id]: id }, [{ resource: detailResource, document: true }], { records: 1 });
      });
    });
  }

  /** Numbered pages in from/to windows over the spans of the rows of `over`, after the previous pull's latest. */
  private async windows(step: Extract<CrawlStep, { kind: 'windows' }>): Promise<void> {
    const endpoint = this.endpoint(step.path);
    const { resource, time } = endpoint.answer as { resource: string; time: string };
    const table = this.normalizer.table(resource);
    const latest = (await this.watermarks(table.name, [], time)).get(seriesKey([]));
    const start = latest === undefined ? undefined : addDays(utcDayOf(latest), -OVERLAP_DAYS);
    const spans = merge(this.parentsOf(step.over.resource).map((row) => this.span(row, step.over)));
    const windows = spans.flatMap(([from, to]) => forwardWindows(start && start > from ? start : from, to, step.days));
    // Previous rows from the first window asked on are replaced by what it brings.
    const cutoffs = new Map(start && windows.length ? [[seriesKey([]), dayToUtcMs(windows[0]![0])]] : []);
    this.plans.set(table.name, this.appendOrReplace([], time, cutoffs));
    this.planned(windows.length);
    await this.each(windows, async ([from, to]) => {
      await this.unit(`GET ${endpoint.fullPath}?from=${from}&to=${to}&pageSize=${step.pageSize}`, async () => {
        const answers: RawJson[] = [];
        const batches: Batch[] = [];
        let records = 0;
        const shape = numberedPageShape(step.pageSize);
        let previous: string | undefined;
        for (let page = 1; ; page++) {
          const got = await this.get(endpoint.fullPath, { from, to, page, pageSize: step.pageSize }, { shape });
          const body = got.body as { data: unknown[]; hasNextPage: boolean };
          // An upstream that ignores `page` would be paged forever, storing the same rows again and again.
          const first = JSON.stringify(body.data[0]);
          if (page > 1 && first === previous) throw new Error(`GET ${got.url}: page ${page} starts with the row page ${page - 1} started with; the upstream does not page`);
          previous = first;
          batches.push({ resource, field: 'data', answer: answers.length, params: { from, to }, path: step.path, url: got.url, fetchedAt: Date.now() });
          answers.push(new RawJson(got.text));
          records += body.data.length;
          if (!body.hasNextPage) break;
        }
        this.options.tally.records += records;
        return { meta: { records }, answers, batches };
      });
    });
  }

  /**
   * A series per combination of parents, in windows: from shortly before where the previous pull
   * left off, else across the first parent's span, else backwards from today until two windows
   * in a row are empty.
   */
  private async series(step: Extract<CrawlStep, { kind: 'series' }>): Promise<void> {
    const endpoint = this.endpoint(step.path);
    if (endpoint.answer.kind !== 'series') return;
    const { parents, resource, time } = endpoint.answer;
    const table = this.normalizer.table(resource);
    const columns = parents.map((p) => p.column);
    const marks = await this.watermarks(table.name, columns, time);
    const lists = parents.map((parent) =>
      this.parentsOf(parent.resource).filter((row) => Object.entries(step.where?.[parent.param] ?? {}).every(([column, value]) => row[column] === value)),
    );
    const combinations = lists.reduce<Record<string, unknown>[][]>((acc, rows) => acc.flatMap((combo) => rows.map((row) => [...combo, row])), [[]]);
    const cutoffs = new Map<string, number>();
    const jobs = combinations.map((combo) => {
      const values = combo.map((row, i) => String(row[parents[i]!.key]));
      const latest = marks.get(seriesKey(values));
      const span = step.span ? this.span(combo[0]!, step.span) : undefined;
      let windows: [string, string][] | undefined;
      if (latest !== undefined) {
        const start = addDays(utcDayOf(latest), -OVERLAP_DAYS);
        windows = forwardWindows(span && span[0] > start ? span[0] : start, span?.[1] ?? this.today, step.days);
        // Previous rows from the first window asked on are replaced by what it brings.
        if (windows.length) cutoffs.set(seriesKey(values), dayToUtcMs(windows[0]![0]));
      } else if (span) {
        windows = forwardWindows(span[0], span[1], step.days);
      }
      return { values, windows };
    });
    this.plans.set(table.name, this.appendOrReplace(columns, time, cutoffs));
    this.planned(jobs.length);
    await this.each(jobs, async (job) => {
      const params = Object.fromEntries(parents.map((p, i) => [p.param, job.values[i]!]));
      const path = parents.reduce((p, parent, i) => p.replace(`{${parent.param}}`, encodeURIComponent(job.values[i]!)), endpoint.fullPath);
      const shape = (body: unknown) => (isObject(body) && Array.isArray(body[step.field]) ? undefined : `no array "${step.field}"`);
      const window = ([from, to]: [string, string]) =>
        this.unit<{ records: number }>(`GET ${path}?from=${from}&to=${to}`, async () => {
          const got = await this.get(path, { from, to }, { shape });
          const records = (got.body as Record<string, unknown[]>)[step.field]!.length;
          return this.found(got, step.path, { ...params, from, to }, [{ resource, field: step.field }], { records });
        });
      if (job.windows) {
        this.planned(job.windows.length);
        for (const w of job.windows) await window(w);
      } else {
        // No span to go by: walk back until two windows in a row hold nothing.
        for (let to = this.today, empty = 0; empty < 2; to = addDays(to, -step.days)) {
          this.planned(1);
          const meta = await window([addDays(to, 1 - step.days), to]);
          empty = meta.records === 0 ? empty + 1 : 0;
        }
      }
      this.options.tally.done++;
    });
  }

  /** The present, captured once per pull; a resumed pull keeps the capture it already made. */
  private async capture(step: Extract<CrawlStep, { kind: 'capture' }>): Promise<void> {
    const endpoint = this.endpoint(step.path);
    const places: BatchPlace[] = step.parts.flatMap((part) => [
      { resource: part.resource, field: part.field, ...(part.children?.length ? { ignore: part.children.map((c) => c.field) } : {}) },
      ...(part.children ?? []).map((child) => ({ resource: child.resource, field: part.field, within: { field: child.field, param: child.param, from: child.from } })),
    ]);
    for (const place of places) this.plans.set(this.normalizer.table(place.resource).name, { kind: 'append', series: [], time: '', cutoffs: new Map() });
    this.planned(1);
    await this.unit(`GET ${endpoint.fullPath} capture`, async () => {
      const got = await this.get(endpoint.fullPath, {}, { shape: (body) => captureShape(body, step.parts) });
      const records = step.parts.reduce((n, part) => n + ((got.body as Record<string, unknown[]>)[part.field]?.length ?? 0), 0);
      return this.found(got, step.path, {}, places, { capturedAt: Date.now(), records });
    });
  }

  // ---- the machinery ------------------------------------------------------------------------

  /** A unit's result from one answer, kept as the text it came in. */
  private found<M extends { records?: number }>(got: Answer | (Omit<Answer, 'text'> & { text?: string }), path: string, params: Record<string, string>, places: readonly BatchPlace[], meta: M): Found<M> {
    const fetchedAt = Date.now();
    this.options.tally.records += meta.records ?? 0;
    return {
      meta,
      answers: [got.text === undefined ? got.body : new RawJson(got.text)],
      batches: places.map((place) => ({ ...place, answer: 0, params, path, url: got.url, fetchedAt })),
    };
  }

  /** Runs a unit unless the journal has it; `replay` rebuilds in-memory state from a journalled unit's meta. */
  private async unit<M>(key: string, work: () => Promise<Found<M>>, replay?: (meta: M) => void): Promise<M> {
    const { journal, tally } = this.options;
    if (journal.has(key)) {
      const meta = journal.meta<M>(key)!;
      replay?.(meta);
      tally.done++;
      tally.resumed++;
      return meta;
    }
    const found = await work();
    journal.append({ key, meta: found.meta, dataset: this.options.dataset.name, batches: found.batches ?? [], answers: found.answers ?? [] });
    tally.done++;
    return found.meta;
  }

  private get(path: string, query: Record<string, string | number>, options: GetOptions) {
    return this.options.upstream.get(path, query, { ...options, onAttempt: this.countRequest });
  }

  /** The data set's share of the requests the upstream client sends, retries included, as its total counts them. */
  private readonly countRequest = () => {
    this.options.tally.requests++;
  };

  /** Runs `work` over items, a few at a time; a failed item is recorded and the rest go on, unless the upstream is down. */
  private async each<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < items.length) {
        const item = items[next++]!;
        try {
          await work(item);
        } catch (error) {
          if (this.options.upstream.downError) throw this.options.upstream.downError;
          this.fail(error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.parallel, items.length) }, worker));
  }

  private fail(error: unknown): void {
    const message = (error as Error).message ?? String(error);
    this.failures.push(message);
    this.options.log('failed', { dataset: this.options.dataset.name, error: message });
  }

  /** A series table keeps its previous rows before the cutoffs; without a previous snapshot to build on, the pull's rows are all. */
  private appendOrReplace(series: readonly string[], time: string, cutoffs: ReadonlyMap<string, number>): TablePlan {
    return this.options.previous ? { kind: 'append', series, time, cutoffs } : { kind: 'replace' };
  }

  private planned(units: number): void {
    this.options.tally.planned += units;
  }

  private endpoint(path: string): Endpoint {
    return this.options.dataset.endpoints.find((e) => e.path === path)!;
  }

  private parentsOf(resource: string): Record<string, unknown>[] {
    const rows = this.fetched.get(resource);
    if (!rows) throw new Error(`${this.options.dataset.name}: cannot crawl what depends on ${resource}, which was not fetched`);
    return rows;
  }

  private watermarks(table: string, columns: readonly string[], time: string) {
    return this.options.previous?.watermarks(this.options.dataset, table, columns, time) ?? Promise.resolve(new Map<string, number>());
  }

  /** The UTC days a parent row spans, a day wider on each side: spans given in local days reach into the next UTC day. */
  private span(row: Record<string, unknown>, span: Span): [string, string] {
    const day = (value: unknown) => (typeof value === 'number' ? utcDayOf(value) : String(value).slice(0, 10));
    const to = row[span.to] === null || row[span.to] === undefined ? this.today : day(row[span.to]);
    return [addDays(day(row[span.from]), -1), addDays(to, 1)];
  }
}

interface PageMeta {
  readonly total: number;
  /** Ids first seen on this page, with the item's fingerprint when details are fetched. */
  readonly items: readonly [string, string | null][];
}

const resourceOf = (endpoint: Endpoint) => (endpoint.answer as { resource: string }).resource;

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function idOf(item: unknown, field: string): string {
  const id = isObject(item) ? item[field] : undefined;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : JSON.stringify(item);
}

const objectShape = (body: unknown) => (isObject(body) ? undefined : 'not an object');

const pageShape = (body: unknown) =>
  isObject(body) && Array.isArray(body.items) && isObject(body.pagination) && typeof body.pagination.total === 'number' ? undefined : 'no items with a pagination total';

/**
 * A numbered page as v1 sends it; one that says there is a next page holds a whole page. A short
 * or empty page with more to come contradicts itself (a body cut short and closed again, a
 * failing upstream): taken as it is, the rows it lacks would be lost without a trace, so it is
 * retried like any misshapen answer.
 */
const numberedPageShape = (pageSize: number) => (body: unknown) => {
  if (!isObject(body) || !Array.isArray(body.data) || typeof body.hasNextPage !== 'boolean') return 'no data with hasNextPage';
  if (body.data.length > pageSize) return `${body.data.length} items on a page of ${pageSize}`;
  if (body.hasNextPage && body.data.length < pageSize) return `${body.data.length} items on a page of ${pageSize} that has a next page`;
  return undefined;
};

const captureShape = (body: unknown, parts: readonly CapturePart[]) => {
  const missing = parts.find((part) => !isObject(body) || !Array.isArray(body[part.field]));
  return missing ? `no array "${missing.field}"` : undefined;
};

/** Days from..to in windows of at most `days`, oldest first. */
function forwardWindows(from: string, to: string, days: number): [string, string][] {
  const windows: [string, string][] = [];
  for (let start = from; start <= to; start = addDays(start, days)) {
    const end = addDays(start, days - 1);
    windows.push([start, end < to ? end : to]);
  }
  return windows;
}

/** Overlapping or adjacent spans joined, so no day is asked twice. */
function merge(spans: [string, string][]): [string, string][] {
  const sorted = [...spans].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const merged: [string, string][] = [];
  for (const [from, to] of sorted) {
    const last = merged.at(-1);
    if (last && from <= addDays(last[1], 1)) last[1] = to > last[1] ? to : last[1];
    else merged.push([from, to]);
  }
  return merged;
}
