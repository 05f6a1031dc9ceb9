/** What a data set declares of an endpoint answered as `series`: apart from the kind (index.ts), so that its parts import it and not the kind. */

import type { RenderContext } from '../../vocabulary/render.ts';

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

/**
 * The rows under parent resources whose `time` falls in from..to, wrapped by `envelope`: a
 * counter's readings, a station's history of one sensor.
 */
export interface SeriesAnswer {
  readonly kind: 'series';
  readonly resource: string;
  readonly parents: readonly Parent[];
  readonly time: string;
  /**
   * The answer around the rows: it places `items` and must not look into them, since rows kept
   * rendered come as one text standing for the whole array (see asItems in serving.ts).
   */
  readonly envelope: (items: unknown[], params: Readonly<Record<string, unknown>>, context: RenderContext) => unknown;
}
