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

/** What the job knows of a feed between captures: its last capture, and why none came since, if none did. */
interface FeedState {
  last: number | undefined;
  reason: string;
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
  const states = new Map<string, FeedState>();
  for (const feed of feeds) {
    const last = await archive.lastCapture(feed.path);
    // Stopped while its captures failed (and backed off): the gap began with that failure.
    const failed = status.current.live[feed.path]?.lastFailure;
    const failing = failed && (last === undefined || Date.parse(failed.at) > last);
    states.set(feed.path, { last, reason: failing ? `${failed.error}; then the mirror stopped` : 'the mirror was not running' });
  }
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
        const state = states.get(feed.path)!;
        const capture = await captureFeed(feed, { upstreamUrl: options.from, archive, clock, timeoutMs }).catch(
          (error: Error) => ({ ok: false, error: error.message }) as const,
        );
        if (!capture.ok) {
          failed++;
          state.reason = capture.error;
          status.captureFailed(feed.path, capture.error);
          log('capture failed', { feed: feed.path, error: capture.error });
          continue;
        }
        const gap = gapBefore(captures, state.last, capture.at, state.reason);
        if (gap) {
          status.gap(feed.path, gap);
          await archive.recordGap(feed.path, gap);
          log('live gap', { feed: feed.path, ...gap });
        }
        state.last = capture.at;
        state.reason = 'the mirror was busy or the upstream slow: a capture came late';
        status.captured(feed.path, capture.at);
      }
      failedRounds = failed === feeds.length ? failedRounds + 1 : 0;
      await status.save();
      return undefined;
    },
  });
}

/**
 * The times of the cadence between the last capture and this one that hold none, as a gap: from
 * the first time after the last capture to the time this one falls in (a capture belongs to the
 * time of the cadence it was made in, even when it was due at the one before and came late).
 * Undefined when none was missed.
 */
export function gapBefore(cadence: Cadence, last: number | undefined, at: number, reason: string): LiveGap | undefined {
  if (last === undefined) return undefined;
  const from = cadence.next(last);
  const to = cadence.previous(at);
  if (from >= to) return undefined;
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString(), minutes: Math.max(1, Math.round((to - from) / 60_000)), reason };
}

/** How long from one time of the cadence to the next, around `at`. */
const intervalAfter = (cadence: Cadence, at: number) => {
  const next = cadence.next(at);
  return cadence.next(next) - next;
};
