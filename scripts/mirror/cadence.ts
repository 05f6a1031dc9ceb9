import { Cron } from 'croner';
import type { Clock } from '../../core/clock.ts';

/**
 * How often a job of the mirror runs: every interval (`30s`, `1m`, `1h`, `1d`, at its multiples
 * since the epoch, so `1h` runs on the hour, UTC) or at the times a cron expression names (five
 * fields, or six with seconds first; in the time zone given, else the system's, as cron reads
 * them). Croner reads the expression and says the next time after any instant, so the mirror's
 * clock, not a timer of croner's, decides when that is.
 */
export interface Cadence {
  readonly text: string;
  /** The first time after `after` (epoch ms) the job is due. */
  next(after: number): number;
  /** The last time at or before `at` the job was due. */
  previous(at: number): number;
}

const units = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Every `ms`, at its multiples since the epoch. */
class Interval implements Cadence {
  constructor(
    readonly text: string,
    readonly ms: number,
  ) {}

  next(after: number): number {
    return (Math.floor(after / this.ms) + 1) * this.ms;
  }

  previous(at: number): number {
    return Math.floor(at / this.ms) * this.ms;
  }
}

/** The times a cron expression names, as croner reads it. */
class CronTimes implements Cadence {
  readonly #cron: Cron;

  constructor(
    readonly text: string,
    readonly timeZone: string | undefined,
  ) {
    this.#cron = new Cron(text, { paused: true, ...(timeZone ? { timezone: timeZone } : {}) });
  }

  next(after: number): number {
    const next = this.#cron.nextRun(new Date(after));
    if (!next) throw new Error(`the cron expression "${this.text}" names no time after ${new Date(after).toISOString()}`);
    return next.getTime();
  }

  previous(at: number): number {
    return this.#cron.previousRuns(1, new Date(at + 1))[0]?.getTime() ?? -Infinity;
  }
}

/** A cadence from its text, or what is wrong with the text. */
export function parseCadence(text: string, timeZone?: string): Cadence | { readonly problem: string } {
  const interval = /^(\d+)(s|m|h|d)$/.exec(text.trim());
  if (interval) {
    const ms = Number(interval[1]) * units[interval[2] as keyof typeof units];
    return ms === 0 ? { problem: 'must be longer than 0' } : new Interval(text, ms);
  }
  try {
    return new CronTimes(text, timeZone);
  } catch (error) {
    return { problem: `must be an interval (30s, 5m, 1h, 1d) or a cron expression: ${(error as Error).message}` };
  }
}

export interface Keeping {
  readonly clock: Clock;
  readonly cadence: Cadence;
  /** A run; it may name the time it wants to run again (a retry sooner, after a failure). */
  readonly job: (due: number) => Promise<number | undefined>;
  readonly signal: AbortSignal;
  /** Added to each time the cadence names: jitter, or backoff. */
  readonly delay?: () => number;
  /** When to run first, if not at the cadence's next time (at once, when overdue). */
  readonly first?: number;
  /** Told each time a run is due, before waiting for it. */
  readonly onDue?: (due: number) => void | Promise<void>;
}

/**
 * Runs a job at each time its cadence names, one run at a time: the next time is reckoned when a
 * run ends, so a slow run delays the next instead of piling runs up, and times missed meanwhile
 * are skipped. Ends when the signal aborts.
 */
export async function keepRunning(keeping: Keeping): Promise<void> {
  const { clock, cadence, job, signal, delay = () => 0 } = keeping;
  let again = keeping.first;
  while (!signal.aborted) {
    const due = again ?? cadence.next(clock.now()) + delay();
    await keeping.onDue?.(due);
    await clock.sleepUntil(due, signal);
    if (signal.aborted) return;
    again = await job(due);
  }
}
