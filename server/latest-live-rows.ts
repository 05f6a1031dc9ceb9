import { readRows } from '../datasets/answers/serving.ts';
import type { Dataset } from '../datasets/vocabulary/dataset.ts';
import type { ServedSnapshot } from './served-snapshot.ts';

/**
 * Where the server's feeds find "the latest live rows" of a resource (a table of live captures),
 * as the table's JS rows in row order. The one place to point them elsewhere: at the live archive,
 * which captures every minute between snapshots, the feeds are current after each of its
 * captures with no other change.
 */
export type LatestLiveRows = (served: ServedSnapshot, dataset: Dataset, resource: string) => Promise<Record<string, unknown>[]>;

/** Today's source: the newest capture in the snapshot served. */
export const latestInSnapshot: LatestLiveRows = (served, dataset, resource) =>
  served.use((connection) => readRows(served.tables, connection, dataset, resource, { latest: true }));
