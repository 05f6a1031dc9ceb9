import type { Manifest } from '../../core/snapshot/manifest.ts';
import type { Text } from '../../core/text.ts';

/**
 * A feed a data set publishes beside its v1 endpoints: documents in a format of someone else's
 * (GBFS, say), made from the snapshot's tables. The server answers each at
 * `/<feed>/<data set>/<file>` (feedDocumentPath) and the static build writes it at the same
 * path; neither knows the format. Not the Atom feed of changes (ChangesFeed), which only lists
 * what pulls changed.
 */
export interface Feed {
  /** The first segment of its documents' paths, e.g. `gbfs`. */
  readonly name: string;
  readonly title: Text;
  /** Seconds a copy of a document stays fresh, for the server's Cache-Control. */
  readonly maxAge: number;
  readonly documents: readonly FeedDocument[];
}

export interface FeedDocument {
  /** Its file name, e.g. `vehicle_status.json`. */
  readonly file: string;
  readonly make: (source: FeedSource) => Promise<MadeDocument>;
}

/**
 * A document made, with what it left out of the snapshot and why (said by the build); or why it
 * cannot be made from what the source knows (the server answers 404, the build leaves it out).
 */
export type MadeDocument = { readonly body: unknown; readonly leftOut?: readonly string[] } | { readonly unavailable: string };

/** What a feed's documents read: the server and the static build each give it (server/feeds/, scripts/static/feeds.ts). */
export interface FeedSource {
  /** The data set's name and title. */
  readonly dataset: { readonly name: string; readonly title: Text };
  /** The manifest of the snapshot read: its licence, source, creation time. */
  readonly manifest: Manifest;
  /** Every row of a resource's table, in row order, as the table's JS rows. */
  rows(resource: string): Promise<Record<string, unknown>[]>;
  /** The rows of the newest capture of a live resource's table (greatest time column); none when it holds none. */
  latest(resource: string): Promise<Record<string, unknown>[]>;
  /** The absolute URL of a document of this feed; undefined where no absolute address is known (a tree built without an absolute --base-url). */
  url(file: string): string | undefined;
  /** An e-mail address the publisher of this mirror gave for reports about its feeds, if any. */
  readonly contact?: string;
}

/** Where a feed's document is, in the tree and (with a leading `/`) on the server: `gbfs/citybike/gbfs.json`. */
export const feedDocumentPath = (feed: string, dataset: string, file: string) => `${feed}/${dataset}/${file}`;

/** Names a feed may not take: the tree's and the server's own first segments. */
export const RESERVED_FEED_NAMES: readonly string[] = ['api', 'downloads', 'datasets', 'problems', 'healthz', 'manual', 'pl'];
