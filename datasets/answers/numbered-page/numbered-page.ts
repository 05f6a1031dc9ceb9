/** The most rows a numbered page holds (spec section 8); the static tree and a pull ask for pages this size. */
export const MAX_PAGE_SIZE = 500;
/** What a request without `pageSize` gets. */
export const DEFAULT_PAGE_SIZE = 100;

/** The body of a numbered page, shaped as the spec's rides are. */
export const numberedPage = (data: unknown[], page: number, pageSize: number, hasNextPage: boolean) => ({ data, page, pageSize, hasNextPage });
