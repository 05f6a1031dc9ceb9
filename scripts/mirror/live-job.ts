import type { LiveGap } from '../../core/mirror-status.ts';
import type { Cadence } from './cadence.ts';
import { keepRunning } from './cadence.ts';
import type { LiveArchive } from './live-archive.ts';
import { captureFeed, type LiveFeed } from './live-feeds.ts';
import type { Clock } from '../../core/clock.ts';
import type { StatusRecord } from './status-record.ts';

/** The longest the captures back off while every feed fails (ms of the clock). */
const MAX_CAPTURE_BACKOFF = 10 * 60_000;

export interface CapturingOptions {
  /** The upstream's base URL. */
  readonly from: string;
  readonly clock: Clock;
  readonly captures: Cadence;
  readonly log: (event: string, fields?: Record<string, unknown>) => void;
  readonly signal: AbortSignal;
}

const LATE = 'the mirror was busy or the upstream slow: a capture came late';

/**
 * A feed's minutes accounted for: each time of the cadence holds a capture or lies in a recorded
 * gap. A gap is recorded once a capture comes again, or as soon as its cause changes (an outage,
 * then 429s: two gaps, each with its reason), so a kill loses no more than the open gap's reason.
 */
export class FeedAccount {
  constructor(
    private readonly cadence: Cadence,
    /** The first time of the cadence not yet accounted for; undefined before the first capture ever. */
    private from: number | undefined,
    /** Why no capture has come since `from`. */
    private cause: string,
  ) {}

  /** A capture failed at `at`: the gap so far is recorded if this failure's reason is new. */
  failed(at: number, reason: string): LiveGap | undefined {
    if (reason === this.cause) return undefined;
    // The failure belongs to the time of the cadence it was made in.
    const gap = this.gapTo(Math.max(this.cadence.previous(at), this.from ?? -Infinity));
    this.cause = reason;
    return gap;
  }

  /** A capture came at `at`: the times before it with none are a gap. */
  captured(at: number): LiveGap | undefined {
    const gap = this.gapTo(this.cadence.previous(at));
    this.from = this.cadence.next(at);
    this.cause = LATE;
    return gap;
  }

  private gapTo(to: number): LiveGap | undefined {
    const from = this.from;
    if (from === undefined || from >= to) return undefined;
    this.from = to;
    return { from: new Date(from).toISOString(), to: new Date(to).toISOString(), minutes: Math.max(1, Math.round((to - from) / 60_000)), reason: this.cause };
  }
}

/**
 * Captures every live feed at each time of the captures' cadence, one after the other, into the
 * live archive. A time with no capture (the upstream failing, the mirror busy or not running) is a
 * gap, recorded with why once a capture comes again. While every feed fails, captures back off
 * (a cadence, two, four … up to ten minutes): the upstream is not asked every minute while down.
 */
export async function keepCapturing(options: CapturingOptions, feeds: readonly LiveFeed[], archive: LiveArchive, status: StatusRecord): Promise<void> {
  if (!feeds.length) return;
  const { clock, captures, log } = options;
  const accounts = new Map<string, FeedAccount>();
  for (const feed of feeds) {
    const last = await archive.lastCapture(feed.path);
    // Accounted for up to the later of the last capture and the last gap recorded.
    const recorded = status.current.live[feed.path]?.gaps.at(-1);
    const from = Math.max(last === undefined ? -Infinity : captures.next(last), recorded ? Date.parse(recorded.to) : -Infinity);
    // Stopped while its captures failed (and backed off): the gap began with that failure.
    const failed = status.current.live[feed.path]?.lastFailure;
    const failing = failed && (last === undefined || Date.parse(failed.at) > last);
    const cause = failing ? `${failed.error}; then the mirror stopped` : 'the mirror was not running';
    accounts.set(feed.path, new FeedAccount(captures, Number.isFinite(from) ? from : undefined, cause));
  }
  const record = async (feed: LiveFeed, gap: LiveGap | undefined) => {
    if (!gap) return;
    status.gap(feed.path, gap);
    await archive.recordGap(feed.path, gap);
    log('live gap', { feed: feed.path, ...gap });
  };
  let failedRounds = 0;
  await keepRunning({
    clock,
    cadence: captures,
    signal: options.signal,
    delay: () => (failedRounds ? Math.min(2 ** (failedRounds - 1) * intervalAfter(captures, clock.now()), MAX_CAPTURE_BACKOFF) : 0),
    onDue: (due) => {
      for (const feed of feeds) status.captureDue(feed.path, due);
    },
    job: async (due) => {
      // A capture waits for its answer until the next is due, a second at least, half a minute at most.
      const timeoutMs = Math.min(Math.max((captures.next(due) - due) / clock.speed, 1_000), 30_000);
      let failed = 0;
      for (const feed of feeds) {
        const account = accounts.get(feed.path)!;
        // The gap a capture ends is recorded before the capture is archived (see beforeArchiving).
        const beforeArchiving = (at: number) => record(feed, account.captured(at));
        const capture = await captureFeed(feed, { upstreamUrl: options.from, archive, clock, timeoutMs, beforeArchiving }).catch(
          (error: Error) => ({ ok: false, error: error.message }) as const,
        );
        if (!capture.ok) {
          failed++;
          await record(feed, account.failed(clock.now(), capture.error));
          status.captureFailed(feed.path, capture.error);
          log('capture failed', { feed: feed.path, error: capture.error });
          continue;
        }
        status.captured(feed.path, capture.at);
      }
      failedRounds = failed === feeds.length ? failedRounds + 1 : 0;
      await status.save();
      return undefined;
    },
  });
}

/** How long from one time of the cadence to the next, around `at`. */
const intervalAfter = (cadence: Cadence, at: number) => {
  const next = cadence.next(at);
  return cadence.next(next) - next;
};
