import { enveloped, type Envelope, type PageFacts } from '../envelope.ts';
import { stringify } from '../../vocabulary/written.ts';

/** The most records an offset page holds (spec section 8), and what a list asked without `limit` gets unless its upstream gives fewer. */
export const PAGE_LIMIT = 100;

/** The page size of a list asked without `limit`: its upstream's, where the snapshot knows it. */
export const pageLimitOf = (defaults: Readonly<Record<string, string>>): number => Number(defaults.limit ?? PAGE_LIMIT);

/** What an offset page's envelope says. */
export interface OffsetPageFacts {
  readonly limit: number;
  readonly offset: number;
  readonly total: number;
  readonly next: string | null;
}

/** What an upstream's own envelope keys may follow on an offset page (see envelope.ts). */
const factsOf = (page: OffsetPageFacts, count: number): PageFacts => ({
  total: page.total,
  count,
  pageSize: page.limit,
  page: Math.floor(page.offset / page.limit) + 1,
});

/**
 * The body of an offset page, shaped as the spec's register lists are, in its upstream's
 * envelope; the server and the static tree both build it.
 */
export const offsetPage = (items: unknown[], page: OffsetPageFacts, envelope?: Envelope) =>
  enveloped(
    { items, pagination: { limit: page.limit, offset: page.offset, count: items.length, total: page.total, next: page.next } },
    envelope,
    factsOf(page, items.length),
  );

/** Stands for the items in a page's text, which is cut there. */
const ITEMS = '\u0000items';
const ITEMS_TEXT = JSON.stringify(ITEMS);

/**
 * What goes before and after an offset page's `count` items' JSON, joined by commas: the
 * envelope may put its items anywhere, and its own keys (the page's total) on either side.
 */
export function offsetPageAround(page: OffsetPageFacts & { readonly count: number }, envelope?: Envelope): [string, string] {
  const body = enveloped(
    { items: ITEMS as unknown, pagination: { limit: page.limit, offset: page.offset, count: page.count, total: page.total, next: page.next } },
    envelope,
    factsOf(page, page.count),
  );
  const text = stringify(body);
  const at = text.indexOf(ITEMS_TEXT);
  return [`${text.slice(0, at)}[`, `]${text.slice(at + ITEMS_TEXT.length)}`];
}
