import type { Clock } from '../../core/clock.ts';
import type { Output } from '../../core/progress.ts';
import { currentSnapshotId } from '../../core/snapshot/layout.ts';
import { openSnapshot } from '../../core/snapshot/read.ts';
import { dropIdleCaches, prune, type RetentionPolicy } from '../../core/snapshot/retention.ts';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import { pull, type PullOptions } from '../pull/pull.ts';
import { PullReport } from '../pull/report.ts';
import { keepRunning, type Cadence } from './cadence.ts';
import { LiveArchive } from './live-archive.ts';
import { keepCapturing } from './live-job.ts';
import { liveFeedsOf } from './live-feeds.ts';
import { StatusRecord } from './status-record.ts';

/**
 * A long-running mirror: keeps a data directory current with an upstream, unattended. Two jobs
 * run side by side, each on its cadence and never overlapping itself:
 *
 * - pulls (hourly by default): an incremental pull, which commits the live captures made since
 *   the snapshot before; then what `published` does with the new snapshot (the static tree
 *   rebuilt), then a prune by the retention policy. A failed pull is tried again sooner, backing
 *   off, and the snapshot before stays current (a server serving it takes up the next one itself);
 * - captures (every minute by default) of the live feeds into the live archive (live-job.ts).
 *
 * Both say how they are doing in the status record (core/mirror-status.ts).
 */

export interface MirrorOptions {
  readonly dataDir: string;
  readonly from: string;
  readonly datasets: readonly Dataset[];
  readonly clock: Clock;
  readonly pulls: Cadence;
  readonly captures: Cadence;
  /** Up to this long (ms of the clock) is added at random to each pull's time, so mirrors of one upstream do not all ask at once. */
  readonly jitterMs: number;
  readonly retention?: RetentionPolicy;
  readonly upstream?: PullOptions['upstream'];
  readonly servable?: PullOptions['servable'];
  /** What to do with each new snapshot once current (rebuild the static tree); a failure is logged, and the mirror goes on. */
  readonly published?: (snapshot: string) => Promise<void>;
  /** Where pulls report (progress on a terminal, JSON lines elsewhere). */
  readonly output: Output;
  readonly log: (event: string, fields?: Record<string, unknown>) => void;
  readonly signal: AbortSignal;
}

/** How long captures stay in the live archive's journals after a snapshot holds them. */
const ARCHIVE_KEPT = 24 * 3_600_000;

/** The longest a failed pull waits before it is tried again, unless the cadence comes sooner. */
const MAX_PULL_BACKOFF = 30 * 60_000;

/** Runs until the signal aborts, then ends when the runs under way have. */
export async function runMirror(options: MirrorOptions): Promise<void> {
  const feeds = liveFeedsOf(options.datasets);
  const archive = new LiveArchive(options.dataDir);
  const status = await StatusRecord.open(
    options.dataDir,
    options.from,
    options.datasets.map((d) => d.name),
    feeds.map((feed) => ({ path: feed.path, dataset: feed.dataset.name })),
    options.clock,
    options.log,
  );
  await status.save();
  try {
    await Promise.all([keepPulling(options, archive, status), keepCapturing(options, feeds, archive, status)]);
  } finally {
    archive.close();
  }
}

async function keepPulling(options: MirrorOptions, archive: LiveArchive, status: StatusRecord): Promise<void> {
  const { clock, log } = options;
  let failures = 0;
  // Pulled at once when the data directory has no snapshot of this upstream, or its last is overdue.
  const last = await lastPulled(options.dataDir, options.from);
  const overdue = last === undefined || options.pulls.next(last) <= clock.now();
  await keepRunning({
    clock,
    cadence: options.pulls,
    signal: options.signal,
    delay: () => Math.random() * options.jitterMs,
    first: overdue ? clock.now() : undefined,
    onDue: (due) => status.pullDue(due),
    job: async () => {
      log('pull started', { from: options.from });
      const result = await pull({
        dataDir: options.dataDir,
        from: options.from,
        datasets: options.datasets,
        report: new PullReport(options.output),
        now: () => clock.now(),
        captures: (dataset, after) => archive.capturesAfter(dataset.name, after),
        ...(options.servable ? { servable: options.servable } : {}),
        ...(options.upstream ? { upstream: options.upstream } : {}),
      });
      if (!result.ok) {
        failures++;
        const error = result.failures.join('; ');
        await status.pullFailed(error);
        // Sooner than the cadence, backing off: 1, 2, 4 … minutes, never past the next due time.
        const retry = Math.min(clock.now() + Math.min(2 ** (failures - 1) * 60_000, MAX_PULL_BACKOFF), options.pulls.next(clock.now()));
        log('pull failed', { error, failuresInARow: failures, retryAt: new Date(retry).toISOString(), serving: 'the snapshot before' });
        return retry;
      }
      failures = 0;
      const id = result.snapshot!.id;
      await status.pulled(id, result.seconds);
      log('pulled', { snapshot: id, seconds: Math.round(result.seconds * 10) / 10, requests: result.requests, retries: result.retries });
      // The archive keeps a day of captures beyond what snapshots hold; the rest is in their live tables.
      const dropped = await archive.dropHoursBefore(Date.parse(result.snapshot!.manifest.createdAt) - ARCHIVE_KEPT);
      if (dropped) log('live archive trimmed', { hours: dropped, kept: 'the last day, and what the next pull commits' });
      if (options.published) await options.published(id).catch((error: Error) => log('publishing failed', { snapshot: id, error: error.message }));
      if (options.retention) {
        const pruned = await prune(options.dataDir, options.retention).catch((error: Error) => log('prune failed', { error: error.message }));
        if (pruned && pruned.removed.length) log('pruned', { removed: pruned.removed.length, freedBytes: pruned.freedBytes });
      }
      // Snapshots kept for history need no serving database until asked: disk follows the snapshots kept, not their databases.
      await dropIdleCaches(options.dataDir).catch((error: Error) => log('caches not dropped', { error: error.message }));
      return undefined;
    },
  });
}

/** When the current snapshot was pulled from `from` (epoch ms), if it was. */
async function lastPulled(dataDir: string, from: string): Promise<number | undefined> {
  if (!(await currentSnapshotId(dataDir))) return undefined;
  const { manifest } = await openSnapshot(dataDir);
  const pulledFrom = manifest.source.kind === 'pull' ? manifest.source.upstream : undefined;
  return pulledFrom === from.replace(/\/+$/, '') ? Date.parse(manifest.createdAt) : undefined;
}
