import { createHash } from 'node:crypto';
import { invalidParameter, notFound } from '../core/problem.ts';
import { readRows } from '../datasets/answers/serving.ts';
import type { Dataset } from '../datasets/vocabulary/dataset.ts';
import { feedDocumentPath, type Feed, type FeedDocument, type FeedSource } from '../datasets/vocabulary/feed.ts';
import { linksVary } from './http/link-base.ts';
import { send } from './http/respond.ts';
import type { Answer } from './http/route.ts';
import type { LatestLiveRows } from './latest-live-rows.ts';
import type { SnapshotHost } from './snapshot-host.ts';

/**
 * The documents of the feeds the data sets declare (a GBFS feed, see datasets/vocabulary/feed.ts),
 * at `/<feed>/<data set>/<file>`: made for each request from the snapshot asked for (the current
 * one, or `snapshot=<id>`), its live rows read through `latestLive`, its URLs on the links' base.
 */

export interface FeedDocumentAt {
  readonly dataset: Dataset;
  readonly feed: Feed;
  readonly document: FeedDocument;
}

/** The feed document at a path, if any: what the routing table's feed line matches. */
export function feedDocuments(datasets: readonly Dataset[]): (path: string) => FeedDocumentAt | undefined {
  const byPath = new Map<string, FeedDocumentAt>(
    datasets.flatMap((dataset) =>
      dataset.feeds.flatMap((feed) =>
        feed.documents.map((document) => [`/${feedDocumentPath(feed.name, dataset.name, document.file)}`, { dataset, feed, document }] as const),
      ),
    ),
  );
  return (path) => byPath.get(path);
}

export interface FeedAnswerOptions {
  readonly host: SnapshotHost;
  readonly publicUrl?: string;
  /** The e-mail address the feeds give for reports about them (serve --contact). */
  readonly contact?: string;
  readonly latestLive: LatestLiveRows;
}

export function feedAnswer(options: FeedAnswerOptions): Answer<FeedDocumentAt> {
  const vary = linksVary(options.publicUrl);
  return async ({ request, response, url, base }, { dataset, feed, document }) => {
    const asked = url.searchParams.getAll('snapshot');
    if (asked.length > 1) throw invalidParameter('snapshot', 'snapshot is given more than once');
    const { served, release } = await options.host.leaseOf(asked[0]);
    try {
      const source: FeedSource = {
        dataset: { name: dataset.name, title: dataset.title },
        manifest: served.snapshot.manifest,
        rows: (resource) => served.use((connection) => readRows(served.tables, connection, dataset, resource)),
        latest: (resource) => options.latestLive(served, dataset, resource),
        url: (file) => `${base}/${feedDocumentPath(feed.name, dataset.name, file)}`,
        ...(options.contact ? { contact: options.contact } : {}),
      };
      const made = await document.make(source);
      if ('unavailable' in made) throw notFound(made.unavailable);
      const content = Buffer.from(JSON.stringify(made.body));
      return await send(request, response, {
        status: 200,
        type: 'application/json; charset=utf-8',
        content,
        cacheControl: `public, max-age=${feed.maxAge}`,
        // Named by content, not by snapshot: read from the live archive, a document changes between snapshots.
        identity: [createHash('sha1').update(content).digest('base64url')],
        vary,
        headers: { 'x-odsnap-snapshot': served.id },
      });
    } finally {
      release();
    }
  };
}
