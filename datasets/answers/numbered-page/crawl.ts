import { createHash } from 'node:crypto';
import { addDays, dayToUtcMs, utcDayOf } from '../../../core/calendar.ts';
import type { Endpoint } from '../../vocabulary/endpoint.ts';
import {
  envelopesOf,
  forwardWindows,
  isObject,
  OVERLAP_DAYS,
  ProtocolError,
  readColumnProblems,
  seriesKey,
  storedProblems,
  type Crawl,
  type Fetched,
  type Span,
  type StepScope,
} from '../crawling.ts';
import type { NumberedPageAnswer } from './declaration.ts';
import type { EnvelopeSeen } from '../envelope.ts';
import { withElements } from '../../vocabulary/json-text.ts';
import { probeRange } from '../range-probe.ts';
import { MAX_PAGE_SIZE } from './numbered-page.ts';

/**
 * Numbered pages asked in from/to windows of at most `days` days that cover the span of every
 * row of the resource `over` (rides over the seasons), after where the previous pull left off.
 */
export interface WindowsStep {
  readonly path: string;
  readonly over: { readonly resource: string } & Span;
  readonly days: number;
}

export const windowsProblems = (step: WindowsStep, _endpoint: Endpoint, answer: NumberedPageAnswer, scope: StepScope): string[] => [
  ...storedProblems(scope, answer.resource),
  ...[step.over.from, step.over.to].flatMap((column) => readColumnProblems(scope, step.over.resource, column)),
];

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

/** What a page of a window left in the journal: enough to go on paging after it when resumed. */
interface PageMeta {
  readonly records: number;
  /** A digest of the page's first row. */
  readonly start: string;
  readonly next: boolean;
  /** The page's envelope as written, its facts but the window's total (known once its last page is in). */
  readonly envelopes?: readonly EnvelopeSeen[];
}

const digest = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 22);

export async function crawlWindows(crawl: Crawl, step: WindowsStep, endpoint: Endpoint, answer: NumberedPageAnswer): Promise<void> {
  const { resource, time } = answer;
  const table = crawl.table(resource);
  const latest = (await crawl.watermarks(table.name, [], time)).get(seriesKey([]));
  const start = latest === undefined ? undefined : addDays(utcDayOf(latest), -OVERLAP_DAYS);
  const spans = merge(crawl.parentsOf(step.over.resource).map((row) => crawl.span(row, step.over)));
  const windows = spans.flatMap(([from, to]) => forwardWindows(start && start > from ? start : from, to, step.days));
  // Previous rows from the first window asked on are replaced by what it brings.
  const cutoffs = new Map(start && windows.length ? [[seriesKey([]), dayToUtcMs(windows[0]![0])]] : []);
  crawl.plan(table.name, crawl.appendOrReplace([], time, cutoffs));
  crawl.planned(windows.length);
  const { maxPages } = crawl.limits;
  // Each page is a unit of its own, in the journal as soon as it comes: a window's pages are never
  // held together, however many the upstream says there are. The window's own unit, written once
  // its last page is, says it is whole (an older odsnap's held all its pages).
  const place = { resource, field: 'data', window: { endpoint: endpoint.fullPath, time, ...(answer.until ? { until: answer.until } : {}) } };
  const keyOf = (from: string, to: string) => `GET ${endpoint.fullPath}?from=${from}&to=${to}&pageSize=${MAX_PAGE_SIZE}`;
  /** A window of at least two rows, and how many: a page of one row of it shows what the envelope's own keys follow. */
  let counted: { from: string; to: string; total: number } | undefined;
  await crawl.each(windows, async ([from, to]) => {
    const window = keyOf(from, to);
    const whole = await crawl.unit<{ total?: number }>(window, async () => {
      const shape = numberedPageShape(MAX_PAGE_SIZE);
      /** The page each first row started, by digest: an upstream that ignores `page`, or goes round a few pages, would be paged forever. */
      const starts = new Map<string, number>();
      /** The rows of the page before, as text, when this run fetched it. */
      let before: ReadonlySet<string> | undefined;
      let records = 0;
      const envelopes: EnvelopeSeen[] = [];
      for (let page = 1; ; page++) {
        if (page > maxPages) throw new ProtocolError(`${window}: still a next page after ${maxPages} pages (--max-pages)`);
        crawl.planned(1);
        const meta = await crawl.unit<PageMeta>(
          `${window}&page=${page}`,
          async () => {
            const got = await crawl.get(endpoint.fullPath, { from, to, page, pageSize: MAX_PAGE_SIZE }, { shape });
            const body = got.body as { data: unknown[]; hasNextPage: boolean };
            const texts = body.data.map((row) => JSON.stringify(row));
            const first = digest(texts[0] ?? '');
            const earlier = starts.get(first);
            if (earlier !== undefined)
              throw new ProtocolError(`GET ${got.url}: page ${page} starts with the row page ${earlier} started with; the upstream does not page`);
            // Rows of the page before that come again (a list that grew while it was paged) are stored once, as when a window was one unit.
            const seen = before;
            const fresh = seen ? body.data.filter((_, i) => !seen.has(texts[i]!)) : body.data;
            before = new Set(texts);
            const isFresh = seen ? (i: number) => !seen.has(texts[i]!) : () => true;
            const kept =
              fresh.length === body.data.length ? got : { ...got, body: { ...body, data: fresh }, text: got.text && withElements(got.text, 'data', isFresh) };
            const envelopes = envelopesOf(got, endpoint, { count: body.data.length, page, pageSize: MAX_PAGE_SIZE });
            return crawl.found(kept, step.path, { from, to }, [place], { records: fresh.length, start: first, next: body.hasNextPage, envelopes });
          },
          () => (before = undefined),
        );
        if (!starts.has(meta.start)) starts.set(meta.start, page);
        records += meta.records;
        envelopes.push(...(meta.envelopes ?? []));
        if (!meta.next) {
          // Every page in, the window's total is known: what the upstream's own keys may follow.
          const total = envelopes.reduce((sum, seen) => sum + (seen.facts.count ?? 0), 0);
          const observed = { endpoint: endpoint.fullPath, envelopes: envelopes.map((seen) => ({ ...seen, facts: { ...seen.facts, total } })) };
          return { meta: { records, pages: page, total, observed } };
        }
      }
    });
    if (!counted && (whole.total ?? 0) >= 2) counted = { from, to, total: whole.total! };
  });
  if (counted) {
    const { from, to, total } = counted;
    crawl.planned(1);
    await crawl.unit(`GET ${endpoint.fullPath}?from=${from}&to=${to}&page=2&pageSize=1 envelope`, async () => {
      const got = await crawl.get(endpoint.fullPath, { from, to, page: 2, pageSize: 1 }, { shape: numberedPageShape(1) });
      const count = (got.body as { data: unknown[] }).data.length;
      return { meta: { observed: { endpoint: endpoint.fullPath, envelopes: envelopesOf(got, endpoint, { total, count, page: 2, pageSize: 1 }) } } };
    });
  }
  // What the spec leaves open about the range, asked once the windows are in.
  await probeRange(crawl, {
    endpoint: endpoint.fullPath,
    table,
    time,
    ...(answer.until ? { until: answer.until } : {}),
    // Each window's rows are in its pages' units.
    windows: windows
      .filter(([from, to]) => crawl.has(keyOf(from, to)))
      .flatMap(([from, to]) => pageKeys(crawl, keyOf(from, to)).map((key) => ({ key, params: { from, to } }))),
    ask: async ({ from, to }) =>
      crawl.rowsIn(await windowPages(crawl, endpoint, from!, to!, Math.min(maxPages, PROBE_PAGES)), step.path, { from: from!, to: to! }, place),
    askText: async ({ from, to }, timezone) =>
      (await crawl.get(endpoint.fullPath, { from: from!, to: to!, timezone, page: 1, pageSize: MAX_PAGE_SIZE }, { shape: numberedPageShape(MAX_PAGE_SIZE) }))
        .text ?? '',
  });
}

/** The units of a window's pages, in order; the window's own, journalled by an odsnap that kept a window's pages in it. */
function pageKeys(crawl: Crawl, window: string): string[] {
  const keys: string[] = [];
  for (let page = 1; crawl.has(`${window}&page=${page}`); page++) keys.push(`${window}&page=${page}`);
  return keys.length ? keys : [window];
}

/**
 * Pages of a one-day window a probe of the range pages through at most (the sample city's busiest
 * day has 7), holding them all: past them, or at a page that starts as an earlier one did, the
 * probe is not made (and says so), so an upstream cannot page it without end either.
 */
const PROBE_PAGES = 100;

/** Every page of a one-day window a probe asks, in order, `most` of them at most. */
async function windowPages(crawl: Crawl, endpoint: Endpoint, from: string, to: string, most: number): Promise<Fetched[]> {
  const pages: Fetched[] = [];
  const shape = numberedPageShape(MAX_PAGE_SIZE);
  const starts = new Map<string, number>();
  for (let page = 1; ; page++) {
    if (page > most)
      throw new ProtocolError(`GET ${endpoint.fullPath}?from=${from}&to=${to}: still a next page after ${most} pages, as many as a probe of the range asks`);
    const got = await crawl.get(endpoint.fullPath, { from, to, page, pageSize: MAX_PAGE_SIZE }, { shape });
    const body = got.body as { data: unknown[]; hasNextPage: boolean };
    const first = digest(JSON.stringify(body.data[0]) ?? '');
    const earlier = starts.get(first);
    if (earlier !== undefined)
      throw new ProtocolError(`GET ${got.url}: page ${page} starts with the row page ${earlier} started with; the upstream does not page`);
    starts.set(first, page);
    pages.push(got);
    if (!body.hasNextPage) return pages;
  }
}
