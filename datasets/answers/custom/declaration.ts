/** What a data set declares of an endpoint answered as `custom`: apart from the kind (index.ts), so that its parts import it and not the kind. */

import type { RenderContext } from '../../vocabulary/render.ts';

/** What a custom answer may ask of the snapshot; rows come back as the table's JS rows. */
export interface Query {
  /** Rows of a resource's table in its order, narrowed by equal column values. */
  rows(resource: string, where?: Readonly<Record<string, string | number>>): Promise<Record<string, unknown>[]>;
  /** The rows of the newest capture (greatest time column) of a resource's table, narrowed likewise. */
  latest(resource: string, where?: Readonly<Record<string, string | number>>): Promise<Record<string, unknown>[]>;
  /** A row rendered as its resource for this request: to put in the answer as it is (a record kept as written stays its text). */
  render(resource: string, row: Record<string, unknown>): unknown;
  /** The same as a value, to compose an answer from (a live station with its readings). */
  value(resource: string, row: Record<string, unknown>): Record<string, unknown>;
}

/** Anything else, composed from the snapshot through `Query`: the live maps. */
export interface CustomAnswer {
  readonly kind: 'custom';
  /** The resources it reads, so their tables are known without running it. */
  readonly reads: readonly string[];
  /**
   * For each path parameter, the rows whose column holds the values worth a file in the
   * static tree (the server answers any value; the tree holds what the snapshot has).
   */
  readonly each?: Readonly<Record<string, { readonly resource: string; readonly column: string }>>;
  readonly answer: (query: Query, params: Readonly<Record<string, unknown>>, context: RenderContext) => Promise<unknown>;
}
