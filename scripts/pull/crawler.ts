import { addDays, utcDayOf, dayToUtcMs } from '../../datasets/core/calendar.ts';
import type { CapturePart, CrawlStep, Span } from '../../datasets/core/crawl.ts';
import type { Dataset } from '../../datasets/core/dataset.ts';
import type { Endpoint } from '../../datasets/core/endpoint.ts';
import type { Table } from '../../datasets/core/table.ts';
import { fingerprint } from './fingerprint.ts';
import { Ingest, rowObject, rowValues, type Where } from './ingest.ts';
import type { Journal, Quarantined } from './journal.ts';
import { seriesKey, type Previous } from './previous.ts';
import type { Upstream } from './upstream.ts';

/**
 * Runs one data set's crawl plan against an upstream. Work is cut into units (a page, a window of
 * a series, a detail), each recorded in the journal when complete; a unit already there is not
 * fetched again, so a killed pull resumes where it stopped. What each table's new snapshot holds
 * beside this pull's rows (carried details, earlier readings) is returned as a plan per table.
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

interface Found<M> {
  readonly meta: M;
  readonly rows?: readonly Record<string, unknown>[];
  readonly table?: Table;
  readonly more?: readonly { table: Table; rows: readonly Record<string, unknown>[] }[];
  readonly quarantined?: readonly Quarantined[];
}

export class DatasetCrawl {
  readonly plans = new Map<string, TablePlan>();
  readonly failures: string[] = [];
  private readonly ingest: Ingest;
  private readonly today: string;
  /** Rows of the resources earlier steps fetched, which later steps fan out over. */
  private readonly fetched = new Map<string, Record<string, unknown>[]>();

  constructor(private readonly options: CrawlOptions) {
    this.ingest = new Ingest(options.dataset, options.upstreamUrl);
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
      const resource = (endpoint.answer as { resource: string }).resource;
      this.plans.set(this.ingest.resource(resource).table, { kind: 'replace' });
      await this.unit(`GET ${endpoint.fullPath}`, async () => {
        const answer = await this.get(endpoint.fullPath, {}, { shape: (body) => (isObject(body) ? undefined : 'not an object') });
        return this.records(resource, [answer.body], { params: {}, path: endpoint.path, url: answer.url, fetchedAt: Date.now() }, null);
      });
    });
  }

  private async list(path: string): Promise<void> {
    const endpoint = this.endpoint(path);
    const resource = (endpoint.answer as { resource: string }).resource;
    const table = this.ingest.table(resource);
    this.plans.set(table.name, { kind: 'replace' });
    this.planned(1);
    const key = `GET ${endpoint.fullPath}`;
    await this.unit(key, async () => {
      const answer = await this.get(endpoint.fullPath, {}, { shape: (body) => (Array.isArray(body) ? undefined : 'not an array') });
      return this.records(resource, answer.body as unknown[], { params: {}, path, url: answer.url, fetchedAt: Date.now() }, new Dedupe(table));
    });
    const entry = this.options.journal.read(key)!;
    this.fetched.set(resource, (entry.rows?.[table.name] ?? []).map((values) => rowObject(table, values)));
  }

  /**
   * Offset pages, read again until the ids seen cover the total the upstream reports: a list that
   * changes while it is paged (an item moving to a page already read) leaves a gap one round
   * cannot see. Items are kept the first time their id is seen.
   */
  private async pages(step: Extract<CrawlStep, { kind: 'pages' }>): Promise<void> {
    const endpoint = this.endpoint(step.path);
    const resource = (endpoint.answer as { resource: string }).resource;
    const detail = step.detail ? this.endpoint(step.detail) : undefined;
    /** Every id seen, with the listed item's fingerprint when details are fetched for it (null: invalid). */
    const seen = new Map<string, string | null>();
    let total = 0;
    const page = async (round: number, offset: number) => {
      const query = { limit: step.limit, offset };
      const key = `GET ${endpoint.fullPath}?limit=${step.limit}&offset=${offset} round ${round}`;
      const meta = await this.unit<PageMeta>(
        key,
        async () => {
          const answer = await this.get(endpoint.fullPath, query, { shape: pageShape });
          const body = answer.body as { items: unknown[]; pagination: { total: number } };
          const where: Where = { params: {}, path: step.path, url: answer.url, fetchedAt: Date.now() };
          const fresh = body.items.filter((item) => !seen.has(idOf(item, step.id)));
          for (const item of fresh) seen.set(idOf(item, step.id), null);
          if (!detail) return { ...this.records(resource, fresh, where, null), meta: { total: body.pagination.total, ids: fresh.map((i) => idOf(i, step.id)) } };
          // The listed form is only checked here; the stored row comes from the detail.
          const quarantined: Quarantined[] = [];
          const ids: [string, string | null][] = fresh.map((item) => {
            const checked = this.options.dataset.resources[resource]!.schema.safeParse(item);
            if (!checked.success) quarantined.push({ resource, url: answer.url, reason: checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '), record: item });
            const print = checked.success ? fingerprint(item) : null;
            seen.set(idOf(item, step.id), print);
            return [idOf(item, step.id), print];
          });
          this.options.tally.quarantined += quarantined.length;
          return { meta: { total: body.pagination.total, ids: [], items: ids }, quarantined };
        },
        (meta) => {
          for (const id of meta.ids) seen.set(id, null);
          for (const [id, print] of meta.items ?? []) seen.set(id, print);
        },
      );
      total = Math.max(total, meta.total);
      return meta;
    };

    for (let round = 1; round <= MAX_ROUNDS; round++) {
      this.planned(1);
      const first = await page(round, 0);
      total = first.total;
      const offsets: number[] = [];
      for (let offset = step.limit; offset < total; offset += step.limit) offsets.push(offset);
      this.planned(offsets.length);
      await this.each(offsets, (offset) => page(round, offset).then(() => undefined));
      // A list that grew while paged has pages past the first answer's total.
      for (let offset = offsets.length ? offsets.at(-1)! + step.limit : step.limit; offset < total; offset += step.limit) {
        this.planned(1);
        await page(round, offset);
      }
      if (seen.size >= total) break;
      this.options.log('gap', { dataset: this.options.dataset.name, path: step.path, round, seen: seen.size, total });
      if (round === MAX_ROUNDS) this.failures.push(`${endpoint.fullPath}: ${seen.size} distinct items after ${round} rounds, the upstream reports ${total}`);
    }

    if (!detail) {
      this.plans.set(this.ingest.resource(resource).table, { kind: 'replace' });
      return;
    }
    const detailResource = (detail.answer as { resource: string }).resource;
    const table = this.ingest.table(detailResource);
    const previous = this.options.previous ? await this.options.previous.fingerprints(this.options.dataset, resource, step.id, this.options.upstreamUrl) : new Map<string, string>();
    const carry = new Set<string>();
    const wanted: string[] = [];
    for (const [id, print] of seen) {
      if (print === null) continue;
      if (previous.get(id) === print) carry.add(id);
      else wanted.push(id);
    }
    this.plans.set(table.name, { kind: 'refresh', key: table.key![0]!, carry });
    this.options.log('details', { dataset: this.options.dataset.name, path: step.detail, fetch: wanted.length, unchanged: carry.size });
    this.planned(wanted.length);
    await this.each(wanted, async (id) => {
      const path = detail.fullPath.replace(`{${step.id}}`, encodeURIComponent(id));
      await this.unit<{ rows?: number; gone?: boolean }>(`GET ${path}`, async () => {
        const answer = await this.get(path, {}, { notFound: true, shape: (body) => (isObject(body) ? undefined : 'not an object') });
        if (answer.status === 404) return { meta: { gone: true } };
        return this.records(detailResource, [answer.body], { params: { [step.id]: id }, path: detail.path, url: answer.url, fetchedAt: Date.now() }, null);
      });
    });
  }

  /** Numbered pages in from/to windows over the spans of the rows of `over`, after the previous pull's latest. */
  private async windows(step: Extract<CrawlStep, { kind: 'windows' }>): Promise<void> {
    const endpoint = this.endpoint(step.path);
    const answer = endpoint.answer as { resource: string; time: string };
    const table = this.ingest.table(answer.resource);
    const marks = await this.watermarks(table, [], answer.time);
    const latest = marks.get(seriesKey([]));
    const start = latest === undefined ? undefined : addDays(utcDayOf(latest), -OVERLAP_DAYS);
    const spans = merge(this.parentsOf(step.over.resource).map((row) => this.span(row, step.over)));
    const windows = spans.flatMap(([from, to]) => forwardWindows(start && start > from ? start : from, to, step.days));
    // Previous rows from the first window asked on are replaced by what it brings.
    const cutoffs = new Map(start && windows.length ? [[seriesKey([]), dayToUtcMs(windows[0]![0])]] : []);
    this.plans.set(table.name, this.appendOrReplace([], answer.time, cutoffs));
    this.planned(windows.length);
    await this.each(windows, async ([from, to]) => {
      await this.unit(`GET ${endpoint.fullPath}?from=${from}&to=${to}&pageSize=${step.pageSize}`, async () => {
        const dedupe = new Dedupe(table);
        const rows: Record<string, unknown>[] = [];
        const quarantined: Quarantined[] = [];
        for (let page = 1; ; page++) {
          const got = await this.get(endpoint.fullPath, { from, to, page, pageSize: step.pageSize }, { shape: numberedPageShape });
          const body = got.body as { data: unknown[]; hasNextPage: boolean };
          const found = this.records(answer.resource, body.data, { params: { from, to }, path: step.path, url: got.url, fetchedAt: Date.now() }, dedupe);
          rows.push(...found.rows);
          quarantined.push(...found.quarantined);
          // An upstream saying there is more while sending nothing would page forever.
          if (!body.hasNextPage || body.data.length === 0) break;
        }
        return { meta: { rows: rows.length }, rows, table, quarantined };
      });
    });
  }

  /**
   * A series per combination of parents, in windows: from where the previous pull left off (less
   * an overlap), else across the first parent's span, else backwards from today until two
   * windows in a row are empty.
   */
  private async series(step: Extract<CrawlStep, { kind: 'series' }>): Promise<void> {
    const endpoint = this.endpoint(step.path);
    if (endpoint.answer.kind !== 'series') return;
    const { parents, resource, time } = endpoint.answer;
    const table = this.ingest.table(resource);
    const columns = parents.map((p) => p.column);
    const marks = await this.watermarks(table, columns, time);
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
      const window = async ([from, to]: [string, string]) =>
        this.unit<{ rows: number }>(`GET ${path}?from=${from}&to=${to}`, async () => {
          const got = await this.get(path, { from, to }, { shape: (body) => (isObject(body) && Array.isArray(body[step.field]) ? undefined : `no array "${step.field}"`) });
          const found = this.records(resource, (got.body as Record<string, unknown[]>)[step.field]!, { params: { ...params, from, to }, path: step.path, url: got.url, fetchedAt: Date.now() }, new Dedupe(table));
          return found;
        });
      if (job.windows) {
        this.planned(job.windows.length);
        for (const w of job.windows) await window(w);
      } else {
        // No span to go by: walk back until two windows in a row hold nothing.
        for (let to = this.today, empty = 0; empty < 2; to = addDays(to, -step.days)) {
          this.planned(1);
          const meta = await window([addDays(to, 1 - step.days), to]);
          empty = meta.rows === 0 ? empty + 1 : 0;
        }
      }
      this.options.tally.done++;
    });
  }

  /** The present, captured once per pull; a resumed pull keeps the capture it already made. */
  private async capture(step: Extract<CrawlStep, { kind: 'capture' }>): Promise<void> {
    const endpoint = this.endpoint(step.path);
    for (const part of step.parts) {
      for (const resource of [part.resource, ...(part.children ?? []).map((c) => c.resource)]) {
        this.plans.set(this.ingest.table(resource).name, { kind: 'append', series: [], time: '', cutoffs: new Map() });
      }
    }
    this.planned(1);
    await this.unit(`GET ${endpoint.fullPath} capture`, async () => {
      const got = await this.get(endpoint.fullPath, {}, { shape: (body) => captureShape(body, step.parts) });
      const fetchedAt = Date.now();
      const body = got.body as Record<string, Record<string, unknown>[]>;
      const more: { table: Table; rows: Record<string, unknown>[] }[] = [];
      const quarantined: Quarantined[] = [];
      const where: Where = { params: {}, path: step.path, url: got.url, fetchedAt };
      for (const part of step.parts) {
        const children = part.children ?? [];
        const ignore = new Set(children.map((c) => c.field));
        const found = this.records(part.resource, body[part.field]!, where, new Dedupe(this.ingest.table(part.resource)), ignore);
        more.push({ table: this.ingest.table(part.resource), rows: found.rows });
        quarantined.push(...found.quarantined);
        for (const child of children) {
          const table = this.ingest.table(child.resource);
          const dedupe = new Dedupe(table);
          const rows: Record<string, unknown>[] = [];
          for (const entry of body[part.field]!) {
            const records = isObject(entry) && Array.isArray(entry[child.field]) ? (entry[child.field] as unknown[]) : [];
            const childWhere = { ...where, params: { [child.param]: String(entry[child.from]) } };
            const got = this.records(child.resource, records, childWhere, dedupe);
            rows.push(...got.rows);
            quarantined.push(...got.quarantined);
          }
          more.push({ table, rows });
        }
      }
      return { meta: { capturedAt: fetchedAt }, more, quarantined };
    });
  }

  // ---- the machinery ------------------------------------------------------------------------

  /** Validated, parsed, deduplicated rows of records, and the records that failed, quarantined. */
  private records(resource: string, records: readonly unknown[], where: Where, dedupe: Dedupe | null, ignore?: ReadonlySet<string>) {
    const rows: Record<string, unknown>[] = [];
    const quarantined: Quarantined[] = [];
    const table = this.ingest.table(resource);
    for (const record of records) {
      const result = this.ingest.record(resource, record, where, ignore);
      if (!result.ok) quarantined.push({ resource, url: where.url, reason: result.reason, record });
      else if (!dedupe || dedupe.keep(result.row)) rows.push(result.row);
    }
    this.options.tally.records += rows.length;
    this.options.tally.quarantined += quarantined.length;
    if (quarantined.length) this.options.log('quarantined', { dataset: this.options.dataset.name, url: where.url, records: quarantined.length, reason: quarantined[0]!.reason });
    return { meta: { rows: rows.length }, rows, table, quarantined };
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
    const rows: Record<string, unknown[][]> = {};
    const tables = [...(found.table && found.rows ? [{ table: found.table, rows: found.rows }] : []), ...(found.more ?? [])];
    for (const { table, rows: list } of tables) {
      if (list.length) (rows[table.name] ??= []).push(...list.map((row) => rowValues(table, row)));
    }
    const quarantined = found.quarantined?.length ? { quarantined: found.quarantined } : {};
    journal.append({ key, meta: found.meta, dataset: this.options.dataset.name, rows, ...quarantined });
    tally.done++;
    return found.meta;
  }

  private get(path: string, query: Record<string, string | number>, options: Parameters<Upstream['get']>[2]) {
    this.options.tally.requests++;
    return this.options.upstream.get(path, query, options);
  }

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

  private watermarks(table: Table, columns: readonly string[], time: string) {
    return this.options.previous?.watermarks(this.options.dataset, table.name, columns, time) ?? Promise.resolve(new Map<string, number>());
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
  /** Ids kept from this page (rows stored from the list). */
  readonly ids: readonly string[];
  /** Ids kept with their fingerprints (details fetched separately). */
  readonly items?: readonly [string, string | null][];
}

const MAX_ROUNDS = 3;

/** Keeps the first row of each key (or, in a table without one, of each identical row). */
class Dedupe {
  private readonly seen = new Set<string>();
  constructor(private readonly table: Table) {}
  keep(row: Record<string, unknown>): boolean {
    const key = this.table.key ? JSON.stringify(this.table.key.map((c) => row[c])) : JSON.stringify(row);
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    return true;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function idOf(item: unknown, field: string): string {
  const id = isObject(item) ? item[field] : undefined;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : JSON.stringify(item);
}

const pageShape = (body: unknown) =>
  isObject(body) && Array.isArray(body.items) && isObject(body.pagination) && typeof body.pagination.total === 'number' ? undefined : 'no items with a pagination total';

const numberedPageShape = (body: unknown) => (isObject(body) && Array.isArray(body.data) && typeof body.hasNextPage === 'boolean' ? undefined : 'no data with hasNextPage');

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
