import { addDays } from '../../core/calendar.ts';
import type { Clock } from '../../core/clock.ts';
import { zonedDayOf, zonedDayStart } from '../../core/zoned-time.ts';
import { city } from '../../datasets/vocabulary/sample-city.ts';

/**
 * The registers of a sample city whose time moves: at each midnight of its clock (in the city's
 * time zone) they become a day older, the day just ended added (its transactions, rides,
 * readings), as `odsnap sample` with a later --until adds it and leaves the days before as they were.
 */

export interface RegisterDaysOptions {
  readonly clock: Clock;
  /** The last day the registers hold now. */
  readonly until: string;
  /** Makes the registers hold every day up to `until`; its snapshot is current when it resolves. */
  readonly advance: (until: string) => Promise<void>;
  readonly signal: AbortSignal;
  /** A day added, and the wall's seconds it took. */
  readonly added?: (until: string, seconds: number) => void;
}

/** The last day a city's registers hold at `at`: the day before its day in the city. */
export const registersUntil = (at: number) => addDays(zonedDayOf(at, city.timeZone), -1);

/** Adds each day as it ends, until `signal` aborts; a clock that ran past several midnights meanwhile gets them at once. */
export async function followRegisterDays(options: RegisterDaysOptions): Promise<void> {
  let until = options.until;
  while (!options.signal.aborted) {
    // The midnight that ends the day after `until`.
    await options.clock.sleepUntil(zonedDayStart(addDays(until, 2), city.timeZone), options.signal);
    if (options.signal.aborted) return;
    const ended = registersUntil(options.clock.now());
    if (ended <= until) continue;
    const started = Date.now();
    await options.advance(ended);
    until = ended;
    options.added?.(until, (Date.now() - started) / 1000);
  }
}
