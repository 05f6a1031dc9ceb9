import type { RenderContext } from './render.ts';

/**
 * How an endpoint is answered from the tables, declared as data so that the server answers one
 * request at a time and the static builder can precompute every file in bulk, from the same
 * declaration.
 */

/** How a filter parameter narrows a page, on which column. */
export type Filter =
  | { readonly kind: 'equals'; readonly column: string }
  | { readonly kind: 'atLeast'; readonly column: string }
  | { readonly kind: 'atMost'; readonly column: string }
  /** The parameter is one of the values of a list column. */
  | { readonly kind: 'listContains'; readonly column: string }
  /** The parameter is a case-insensitive part of any value of a list column. */
  | { readonly kind: 'partOfAny'; readonly column: string }
  /**
   * The parameter (a bounding box) intersects the row's shapes: `extent` columns bound them, and
   * `shapes` is SQL over the row giving its outlines as DOUBLE[][], one list per ring of its
   * coordinates in order, [lon, lat, lon, lat, …] (a point is a ring of one position).
   */
  | { readonly kind: 'intersects'; readonly extent: readonly [string, string, string, string]; readonly shapes: string };

export const filter = {
  equals: (column: string): Filter => ({ kind: 'equals', column }),
  atLeast: (column: string): Filter => ({ kind: 'atLeast', column }),
  atMost: (column: string): Filter => ({ kind: 'atMost', column }),
  listContains: (column: string): Filter => ({ kind: 'listContains', column }),
  partOfAny: (column: string): Filter => ({ kind: 'partOfAny', column }),
  intersects: (extent: readonly [string, string, string, string], shapes: string): Filter => ({ kind: 'intersects', extent, shapes }),
};

/** A path parameter naming another resource: it must exist (else 404), and its key narrows the rows. */
export interface Parent {
  readonly param: string;
  readonly resource: string;
  /** Columns of the parent tried in order to find the named row, e.g. ['id', 'external_id']. */
  readonly match: readonly string[];
  /** The parent's column whose value narrows the rows… */
  readonly key: string;
  /** …compared with this column of the answer's table. */
  readonly column: string;
}

/** What a custom answer may ask of the snapshot; rows come back as the table's JS rows. */
export interface Query {
  /** Rows of a resource's table in its order, narrowed by equal column values. */
  rows(resource: string, where?: Readonly<Record<string, string | number>>): Promise<Record<string, unknown>[]>;
  /** The rows of the newest capture (greatest time column) of a resource's table, narrowed likewise. */
  latest(resource: string, where?: Readonly<Record<string, string | number>>): Promise<Record<string, unknown>[]>;
  /** A row rendered as its resource for this request. */
  render(resource: string, row: Record<string, unknown>): unknown;
}

export type Answer =
  /** Every row of the resource's table, in table order, as an array. */
  | { readonly kind: 'list'; readonly resource: string }
  /** One row, found by a path parameter in the first of `match` columns that has it; 404 otherwise. */
  | { readonly kind: 'item'; readonly resource: string; readonly param: string; readonly match: readonly string[] }
  /** The row whose columns hold these values: an endpoint that is one stored document. */
  | { readonly kind: 'document'; readonly resource: string; readonly where: Readonly<Record<string, string>> }
  /** Offset pages `{ items, pagination }` (limit, offset), narrowed by filter parameters, in table order. */
  | { readonly kind: 'page'; readonly resource: string; readonly filters: Readonly<Record<string, Filter>> }
  /** Numbered pages `{ data, page, pageSize, hasNextPage }` of the rows whose `time` falls in from..to. */
  | { readonly kind: 'numbered-page'; readonly resource: string; readonly time: string }
  /** The rows under parent resources whose `time` falls in from..to, wrapped by `envelope`. */
  | {
      readonly kind: 'series';
      readonly resource: string;
      readonly parents: readonly Parent[];
      readonly time: string;
      readonly envelope: (items: unknown[], params: Readonly<Record<string, unknown>>, context: RenderContext) => unknown;
    }
  /** Anything else, composed from the snapshot through `Query`. */
  | {
      readonly kind: 'custom';
      /** The resources it reads, so their tables are known without running it. */
      readonly reads: readonly string[];
      /**
       * For each path parameter, the rows whose column holds the values worth a file in the
       * static tree (the server answers any value; the tree holds what the snapshot has).
       */
      readonly each?: Readonly<Record<string, { readonly resource: string; readonly column: string }>>;
      readonly answer: (query: Query, params: Readonly<Record<string, unknown>>, context: RenderContext) => Promise<unknown>;
    };

/** The body of an offset page, shaped as the spec's register lists are; the server and the static tree both build it. */
export const offsetPage = (items: unknown[], page: { limit: number; offset: number; total: number; next: string | null }) => ({
  items,
  pagination: { limit: page.limit, offset: page.offset, count: items.length, total: page.total, next: page.next },
});

/** The body of a numbered page, shaped as the spec's rides are. */
export const numberedPage = (data: unknown[], page: number, pageSize: number, hasNextPage: boolean) => ({ data, page, pageSize, hasNextPage });

/** Thrown by an answer when what a parameter names does not exist: the server answers 404. */
export class NotFound extends Error {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
  }
}
