import type { DatasetStatus, LiveFeedStatus, MirrorStatus } from './mirror-status.ts';
import type { Manifest } from './snapshot/manifest.ts';

/**
 * How fresh the data served is, as one JSON document: what `GET /api/public/status` answers and
 * what `odsnap build` writes to the tree (STATUS_FILE in published-tree.ts). It joins the served
 * snapshot's manifest with the mirror's record (core/mirror-status.ts) and states every lag as of
 * one instant, so that the server and the tree say the same thing, each as of its own time.
 */
export interface StatusDocument {
  /** The instant the ages and lags below are counted to. */
  readonly asOf: string;
  readonly snapshot: { readonly id: string; readonly createdAt: string; readonly ageSeconds: number; readonly source: Manifest['source'] };
  /** Null when no mirror keeps this data directory current: then only the snapshot says how old the data is. */
  readonly mirror: MirrorPart | null;
}

interface MirrorPart {
  readonly upstream: string;
  readonly startedAt: string;
  readonly updatedAt: string;
  readonly pulls: MirrorStatus['pulls'];
  readonly datasets: Readonly<Record<string, DatasetPart>>;
  readonly live: Readonly<Record<string, LivePart>>;
}

interface DatasetPart {
  readonly lastSuccess: DatasetStatus['lastSuccess'];
  /** Seconds from the last successful pull to asOf: how far behind the upstream this data set may be. */
  readonly lagSeconds: number | null;
  readonly nextRun: string | null;
  readonly lastError: DatasetStatus['lastFailure'];
  /** Whether the last pull failed (its error is newer than the last success). */
  readonly failing: boolean;
}

interface LivePart {
  readonly dataset: string;
  readonly lastCapture: string | null;
  readonly lagSeconds: number | null;
  readonly nextCapture: string | null;
  readonly captures: number;
  readonly failures: number;
  readonly lastError: LiveFeedStatus['lastFailure'];
  readonly recentGaps: LiveFeedStatus['gaps'];
}

/** The status as of `asOf` (epoch ms): the server's now; for the tree, statusRecordedAt. */
export function statusDocument(manifest: Manifest, mirror: MirrorStatus | undefined, asOf: number): StatusDocument {
  const secondsSince = (at: string | null | undefined) => (at ? Math.round((asOf - Date.parse(at)) / 1000) : null);
  return {
    asOf: new Date(asOf).toISOString(),
    snapshot: { id: manifest.id, createdAt: manifest.createdAt, ageSeconds: secondsSince(manifest.createdAt)!, source: manifest.source },
    mirror: mirror
      ? {
          upstream: mirror.upstream,
          startedAt: mirror.startedAt,
          updatedAt: mirror.updatedAt,
          pulls: mirror.pulls,
          datasets: mapValues(mirror.datasets, (dataset) => ({
            lastSuccess: dataset.lastSuccess,
            lagSeconds: secondsSince(dataset.lastSuccess?.at),
            nextRun: dataset.nextRun,
            lastError: dataset.lastFailure,
            failing: isFailing(dataset),
          })),
          live: mapValues(mirror.live, (feed) => ({
            dataset: feed.dataset,
            lastCapture: feed.lastCapture,
            lagSeconds: secondsSince(feed.lastCapture),
            nextCapture: feed.nextCapture,
            captures: feed.captures,
            failures: feed.failures,
            lastError: feed.lastFailure,
            recentGaps: feed.gaps,
          })),
        }
      : null,
  };
}

/**
 * The latest instant the inputs speak of: the mirror's last record, or the snapshot's making. A
 * static tree's status is as of it, not of the build's clock, so a rebuild from the same snapshot
 * and record writes the same file, and so nothing.
 */
export function statusRecordedAt(manifest: Manifest, mirror: MirrorStatus | undefined): number {
  return Math.max(Date.parse(manifest.createdAt), mirror ? Date.parse(mirror.updatedAt) : Number.NEGATIVE_INFINITY);
}

const isFailing = ({ lastSuccess, lastFailure }: DatasetStatus) =>
  lastFailure !== null && (lastSuccess === null || Date.parse(lastFailure.at) > Date.parse(lastSuccess.at));

const mapValues = <T, U>(record: Readonly<Record<string, T>>, map: (value: T) => U): Record<string, U> =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]));
