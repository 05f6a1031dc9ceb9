import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { kindOf } from '../../datasets/answers/index.ts';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { Clock } from '../../core/clock.ts';
import { DatasetCrawl } from '../pull/crawler.ts';
import { Journal } from '../pull/journal.ts';
import type { Entry } from '../pull/journal-line.ts';
import { defaultPullLimits } from '../pull/limits.ts';
import { Upstream } from '../pull/upstream.ts';
import { capturedAt, type LiveArchive } from './live-archive.ts';

/** A live feed: an endpoint showing only the present, which a data set's crawl plan captures. */
export interface LiveFeed {
  readonly dataset: Dataset;
  /** Its step in the data set's crawl plan. */
  readonly step: Dataset['crawl'][number];
  /** Its full path, e.g. /api/public/citybike/live: how the archive and the status name it. */
  readonly path: string;
}

/** The live feeds of the data sets: the steps of their crawl plans whose kind says they capture the present. */
export const liveFeedsOf = (datasets: readonly Dataset[]): LiveFeed[] =>
  datasets.flatMap((dataset) =>
    dataset.crawl.flatMap((step) => {
      const endpoint = dataset.endpoints.find((e) => e.path === step.path);
      return endpoint && kindOf(endpoint.answer).crawl?.present?.(step) ? [{ dataset, step, path: endpoint.fullPath }] : [];
    }),
  );

export type Capture = { readonly ok: true; readonly at: number; readonly records: number } | { readonly ok: false; readonly error: string };

export interface CaptureOptions {
  readonly upstreamUrl: string;
  readonly archive: LiveArchive;
  readonly clock: Clock;
  /** The longest a capture waits for its answer (wall ms): a capture is of a minute, not retried past it. */
  readonly timeoutMs: number;
  /**
   * Done before the capture goes into the archive (recording the gap it ends): a restarted mirror
   * reads its minutes as accounted for up to its last capture, so what precedes that capture must
   * be on disk first, or a kill between the two leaves minutes neither captured nor in a gap.
   */
  readonly beforeArchiving?: (at: number) => Promise<void>;
}

/**
 * Captures a live feed once into the archive: its step crawled as a pull crawls it (same
 * requests, same checks, the answer kept as written) into a scratch journal, then its unit
 * appended to the archive. One attempt and a retry at most: a minute missed is a gap, and the
 * next minute's capture is soon due.
 */
export async function captureFeed(feed: LiveFeed, options: CaptureOptions): Promise<Capture> {
  const scratch = join(options.archive.dir, '.capturing');
  await mkdir(scratch, { recursive: true });
  const file = join(scratch, `${feed.dataset.name}.journal`);
  await rm(file, { force: true });
  const journal = await Journal.open(file);
  // A Retry-After longer than the capture may take fails it at once: the minute is a gap, and the captures back off.
  const upstream = new Upstream({
    baseUrl: options.upstreamUrl,
    timeoutMs: options.timeoutMs,
    maxWaitMs: options.timeoutMs,
    retries: 1,
    backoffMs: 200,
    maxBackoffMs: 1_000,
    concurrency: 1,
  });
  try {
    const crawl = new DatasetCrawl({
      dataset: feed.dataset,
      upstream,
      upstreamUrl: options.upstreamUrl,
      journal,
      previous: undefined,
      startedAt: options.clock.now(),
      parallel: 1,
      limits: defaultPullLimits,
      tally: { requests: 0, retries: 0, records: 0, quarantined: 0, planned: 0, done: 0, resumed: 0 },
      // A failure is the capture's result, which the mirror logs once.
      log: () => {},
      now: () => options.clock.now(),
    });
    await crawl.run([feed.step]);
    if (crawl.failures.messages.length) return { ok: false, error: crawl.failures.messages.join('; ') };
    const entries: Entry[] = [];
    for await (const entry of journal.entries()) entries.push(entry);
    const last = entries.at(-1);
    if (!last) return { ok: false, error: 'the capture journalled nothing' };
    await options.beforeArchiving?.(capturedAt(last));
    for (const entry of entries) await options.archive.append(entry, capturedAt(entry), feed.path);
    return { ok: true, at: capturedAt(last), records: (last.meta as { records?: number } | null)?.records ?? 0 };
  } finally {
    journal.close();
    upstream.close();
  }
}
