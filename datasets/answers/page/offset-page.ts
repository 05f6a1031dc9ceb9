/** The most records an offset page holds (spec section 8), and what a list asked without `limit` gets. */
export const PAGE_LIMIT = 100;

/** The body of an offset page, shaped as the spec's register lists are; the server and the static tree both build it. */
export const offsetPage = (items: unknown[], page: { limit: number; offset: number; total: number; next: string | null }) => ({
  items,
  pagination: { limit: page.limit, offset: page.offset, count: items.length, total: page.total, next: page.next },
});
