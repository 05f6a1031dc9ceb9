import { readRows, resourceOf, type AnswerRequest } from '../serving.ts';
import { valueOf } from '../../vocabulary/written.ts';
import type { Query } from './declaration.ts';

/** The snapshot as a custom answer sees it, on the server. */
export function queryFor(request: AnswerRequest): Query {
  const { served, connection, dataset } = request;
  return {
    rows: (resource, where = {}) => readRows(served, connection, dataset, resource, { where }),
    latest: (resource, where = {}) => readRows(served, connection, dataset, resource, { where, latest: true }),
    render: (resource, row) => resourceOf(dataset, resource).render(row, request.context),
    value: (resource, row) => valueOf(resourceOf(dataset, resource).render(row, request.context)) as Record<string, unknown>,
  };
}
