/** What a data set declares of an endpoint answered as `page`: apart from the kind (index.ts), so that its parts import it and not the kind. */

import type { Filter } from './filters.ts';

/**
 * Offset pages `{ items, pagination }` (limit, offset), narrowed by filter parameters, in table
 * order: the register's `/transactions` and `/properties`. Each filter names a parameter the
 * endpoint declares.
 */
export interface PageAnswer {
  readonly kind: 'page';
  readonly resource: string;
  readonly filters: Readonly<Record<string, Filter>>;
}
