import { z } from 'zod';
import { fingerprint } from '../../vocabulary/fingerprint.ts';
import { withElements } from '../../vocabulary/json-text.ts';
import type { AnswerDeclaration, Endpoint } from '../../vocabulary/endpoint.ts';
import {
  envelopesOf,
  isObject,
  objectShape,
  ProtocolError,
  storedProblems,
  type Crawl,
  type CrawlLimits,
  type RecordPlace,
  type StepScope,
} from '../crawling.ts';
import type { PageAnswer } from './declaration.ts';
import { PAGE_LIMIT } from './offset-page.ts';
import type { NextSeen } from '../envelope.ts';

/**
 * An offset-paged list, `{ items, pagination }`, re-scanned each pull; `id` is the item field
 * that identifies it. With `detail` (an item endpoint taking that id), items are a list form and
 * each one's full resource is fetched from there, only when the item is new or changed.
 */
export interface PagesStep {
  readonly path: string;
  readonly id: string;
  readonly detail?: string;
}

/** Rounds of reading an offset-paged list before a gap against its total counts as a failure. */
const MAX_ROUNDS = 3;

interface PageMeta {
  readonly total: number;
  /** Ids first seen on this page, with the item's fingerprint when details are fetched, and where the item stood in the list. */
  readonly items: readonly [string, string | null, number?][];
}

function idOf(item: unknown, field: string): string {
  const id = isObject(item) ? item[field] : undefined;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : JSON.stringify(item);
}

/**
 * What is wrong with the total a page reports, if anything: the list's pages are asked for up to
 * it, so one no list holds (negative, fractional, past `--max-records`) would page without end or
 * crash, and one smaller than the page itself would end the list early, its records lost.
 */
function totalProblem(total: number, limits: CrawlLimits, page?: { readonly items: number; readonly offset: number }): string | undefined {
  if (!Number.isSafeInteger(total) || total < 0) return `pagination.total is ${total}, not a whole number of records`;
  if (total > limits.maxRecords) return `pagination.total is ${total}, more than the ${limits.maxRecords} records a list may hold (--max-records)`;
  if (page && page.items > Math.max(0, total - page.offset)) return `${page.items} items at offset ${page.offset} of a list whose pagination.total is ${total}`;
  return undefined;
}

/** The page's `next` as written, with the query asked (from `url`) and the page it should lead to; none on a last page. */
function nextsIn(body: unknown, url: string, limit: number, offset: number): NextSeen[] {
  const next = isObject(body) && isObject(body.pagination) ? body.pagination.next : undefined;
  return typeof next === 'string' ? [{ asked: new URL(url).search.slice(1), limit, offset, next }] : [];
}

/** A text no record holds: asked as a filter, it leaves a list empty. */
const NO_SUCH_TEXT = 'odsnap~no~such~value~';

/** A filter that takes any text, so that a page asked with NO_SUCH_TEXT is empty; none for a list without one. */
function emptyingFilter(endpoint: Endpoint, answer: PageAnswer): string | undefined {
  return Object.entries(answer.filters).find(
    ([name, filter]) =>
      (filter.kind === 'equals' || filter.kind === 'listContains' || filter.kind === 'partOfAny') &&
      endpoint.params[name] !== undefined &&
      z.safeParse(endpoint.params[name], NO_SUCH_TEXT).success,
  )?.[0];
}

const pageShape = (body: unknown) =>
  isObject(body) && Array.isArray(body.items) && isObject(body.pagination) && typeof body.pagination.total === 'number'
    ? undefined
    : 'no items with a pagination total';

export function pagesProblems(step: PagesStep, _endpoint: Endpoint, answer: PageAnswer, scope: StepScope): string[] {
  if (!step.detail) return storedProblems(scope, answer.resource);
  const detail = scope.endpoints.find((e) => e.path === step.detail);
  if (!detail) return [`fetches details from ${step.detail}, which the data set does not declare`];
  if (detail.answer.kind !== 'item') return [`fetches details from ${step.detail}, which is answered as ${detail.answer.kind}, not item`];
  if (!detail.pathParams.includes(step.id)) return [`fetches details from ${step.detail}, which does not take {${step.id}}`];
  return storedProblems(scope, (detail.answer as AnswerDeclaration & { readonly resource: string }).resource);
}

/**
 * Offset pages, read again until the ids seen cover the total the upstream reports: a list that
 * changes while it is paged (an item moving to a page already read) leaves a gap one round
 * cannot see. Items are kept the first time their id is seen.
 */
export async function crawlPages(crawl: Crawl, step: PagesStep, endpoint: Endpoint, answer: PageAnswer): Promise<void> {
  const resource = answer.resource;
  const detail = step.detail ? crawl.endpoint(step.detail) : undefined;
  /** Every id seen, with the listed item's fingerprint when details are fetched. */
  const seen = new Map<string, string | null>();
  /** Where each id stood in the list when first seen: the list is served in this order. */
  const positions = new Map<string, number>();
  const see = ([id, print, position]: readonly [string, string | null, number?]) => {
    seen.set(id, print);
    if (position !== undefined && !positions.has(id)) positions.set(id, position);
  };
  let total = 0;
  const page = async (round: number, offset: number) => {
    const meta = await crawl.unit<PageMeta>(
      `GET ${endpoint.fullPath}?limit=${PAGE_LIMIT}&offset=${offset} round ${round}`,
      async () => {
        const got = await crawl.get(endpoint.fullPath, { limit: PAGE_LIMIT, offset }, { shape: pageShape });
        const body = got.body as { items: unknown[]; pagination: { total: number } };
        const problem = totalProblem(body.pagination.total, crawl.limits, { items: body.items.length, offset });
        if (problem) throw new ProtocolError(`GET ${got.url}: ${problem}`);
        const fresh = body.items.filter((item) => !seen.has(idOf(item, step.id)));
        const items = fresh.map((item): [string, string | null, number] => [
          idOf(item, step.id),
          detail ? fingerprint(item) : null,
          offset + body.items.indexOf(item),
        ]);
        items.forEach(see);
        // An answer with items seen before is stored without them, the rest of its text as it came.
        const isFresh = new Set(fresh);
        const kept =
          fresh.length === body.items.length
            ? got
            : { ...got, body: { ...body, items: fresh }, text: got.text && withElements(got.text, 'items', (i) => isFresh.has(body.items[i])) };
        const place: RecordPlace = { resource, field: 'items', ...(detail ? { checkOnly: true } : {}) };
        const facts = { total: body.pagination.total, count: body.items.length, pageSize: PAGE_LIMIT, page: offset / PAGE_LIMIT + 1 };
        const observed = {
          endpoint: endpoint.fullPath,
          envelopes: envelopesOf(got, endpoint, facts),
          nexts: nextsIn(body, got.url, PAGE_LIMIT, offset + PAGE_LIMIT),
        };
        return crawl.found(kept, step.path, {}, [place], { total: body.pagination.total, items, records: fresh.length, observed });
      },
      (meta) => {
        // Journalled by an odsnap that took any total.
        const problem = totalProblem(meta.total, crawl.limits);
        if (problem) throw new ProtocolError(problem);
        meta.items.forEach(see);
      },
    );
    total = Math.max(total, meta.total);
    return meta;
  };

  // What a request without `limit` gets: the spec shows no default, and a mirror must answer it
  // the same. And how `next` orders a query: asked with `offset` before `limit`, it tells whether
  // the upstream keeps the order asked or one of its own.
  crawl.planned(1);
  await crawl.unit(`GET ${endpoint.fullPath} defaults`, async () => {
    const got = await crawl.get(endpoint.fullPath, {}, { shape: pageShape });
    const body = got.body as { pagination: { limit?: unknown } };
    const limit = body.pagination.limit;
    const usable = typeof limit === 'number' && Number.isInteger(limit) && limit >= 1 && limit <= PAGE_LIMIT;
    if (!usable)
      crawl.log('default not kept', {
        dataset: crawl.dataset.name,
        path: step.path,
        limit,
        note: `a list asked without limit answers with pages of ${PAGE_LIMIT}`,
      });
    const reversed = await crawl.get(endpoint.fullPath, { offset: 0, limit: 1 }, { shape: pageShape });
    const nexts = [...(usable ? nextsIn(body, got.url, limit, limit) : []), ...nextsIn(reversed.body, reversed.url, 1, 1)];
    // A page of one: what the envelope's own keys follow shows, where pages of 100 all look alike.
    const total = (reversed.body as { pagination: { total: number } }).pagination.total;
    const envelopes = envelopesOf(reversed, endpoint, { total, count: (reversed.body as { items: unknown[] }).items.length, pageSize: 1, page: 1 });
    // Every unfiltered page tells the same total: a page filtered to nothing shows which of the
    // envelope's own keys follow it, and which only happen to equal it.
    const empty = emptyingFilter(endpoint, answer);
    if (empty) {
      const none = await crawl.get(endpoint.fullPath, { [empty]: NO_SUCH_TEXT, limit: 1 }, { shape: pageShape });
      const body = none.body as { items: unknown[]; pagination: { total: number } };
      envelopes.push(...envelopesOf(none, endpoint, { total: body.pagination.total, count: body.items.length, pageSize: 1, page: 1 }));
    }
    return { meta: { observed: { endpoint: endpoint.fullPath, ...(usable ? { defaults: { limit: String(limit) } } : {}), nexts, envelopes } } };
  });

  /** Pages that failed (and are failures of the pull): a gap may be theirs. */
  let failed = 0;
  const counted = (offset: number, round: number) =>
    page(round, offset).then(
      () => undefined,
      (error: unknown) => {
        failed++;
        throw error;
      },
    );
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    crawl.planned(1);
    total = (await page(round, 0)).total;
    const offsets: number[] = [];
    for (let offset = PAGE_LIMIT; offset < total; offset += PAGE_LIMIT) offsets.push(offset);
    crawl.planned(offsets.length);
    await crawl.each(offsets, (offset) => counted(offset, round));
    // A list that grew while it was paged has pages past the first answer's total.
    for (let offset = (offsets.at(-1) ?? 0) + PAGE_LIMIT; offset < total; offset += PAGE_LIMIT) {
      crawl.planned(1);
      await counted(offset, round);
    }
    if (seen.size >= total) break;
    crawl.log('gap', { dataset: crawl.dataset.name, path: step.path, round, seen: seen.size, total });
    if (round < MAX_ROUNDS) continue;
    const gap = `${endpoint.fullPath}: ${seen.size} distinct items after ${round} rounds, the upstream reports ${total}`;
    // Every page read, the pages do not hold the total they report: a pull that resumed these rounds would find the same gap.
    if (!failed) throw new ProtocolError(gap);
    crawl.failure(gap);
  }

  if (!detail) {
    crawl.plan(crawl.table(resource).name, { kind: 'replace', positions });
    return;
  }
  const detailResource = (detail.answer as AnswerDeclaration & { readonly resource: string }).resource;
  const table = crawl.table(detailResource);
  const previous = await crawl.fingerprints(resource, step.id);
  const carry = new Set<string>();
  const wanted: string[] = [];
  for (const [id, print] of seen) {
    if (print !== null && previous.get(id) === print) carry.add(id);
    else wanted.push(id);
  }
  crawl.plan(table.name, { kind: 'refresh', key: table.key![0]!, carry, positions });
  crawl.log('details', { dataset: crawl.dataset.name, path: step.detail, fetch: wanted.length, unchanged: carry.size });
  crawl.planned(wanted.length);
  await crawl.each(wanted, async (id) => {
    const path = detail.fullPath.replace(`{${step.id}}`, encodeURIComponent(id));
    await crawl.unit<{ records?: number; gone?: boolean }>(`GET ${path}`, async () => {
      let got = await crawl.get(path, {}, { notFound: true, shape: objectShape });
      // Listed a moment ago: a 404 is asked again once before the item counts as gone (deleted since), and said.
      if (got.status === 404) got = await crawl.get(path, {}, { notFound: true, shape: objectShape });
      if (got.status === 404) {
        crawl.log('gone', { dataset: crawl.dataset.name, path, listedAs: id });
        return { meta: { gone: true } };
      }
      return crawl.found(got, detail.path, { [step.id]: id }, [{ resource: detailResource, document: true }], { records: 1 });
    });
  });
}
