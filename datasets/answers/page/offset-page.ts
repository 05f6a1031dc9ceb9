/** The most records an offset page holds (spec section 8), and what a list asked without `limit` gets unless its upstream gives fewer. */
export const PAGE_LIMIT = 100;

/** The page size of a list asked without `limit`: its upstream's, where the snapshot knows it. */
export const pageLimitOf = (defaults: Readonly<Record<string, string>>): number => Number(defaults.limit ?? PAGE_LIMIT);

/** The body of an offset page, shaped as the spec's register lists are; the server and the static tree both build it. */
export const offsetPage = (items: unknown[], page: { limit: number; offset: number; total: number; next: string | null }, envelope?: Readonly<Record<string, unknown>>) => ({
  items,
  pagination: { limit: page.limit, offset: page.offset, count: items.length, total: page.total, next: page.next },
  ...envelope,
});
