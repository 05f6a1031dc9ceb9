import { z } from 'zod';

/**
 * Time as a long-running mirror and the sample upstream see it: the wall clock, or a clock that
 * runs faster from an anchor, so that a test or a bench lives days of a mirror in minutes. Two
 * processes given the same ODSNAP_CLOCK read the same time, whenever each started.
 */
export interface Clock {
  /** Epoch ms on this clock. */
  now(): number;
  /** How many of this clock's seconds pass in a second of the wall's. */
  readonly speed: number;
  /** Resolves when this clock reads `at` (at once if it has), or when `signal` aborts. */
  sleepUntil(at: number, signal?: AbortSignal): Promise<void>;
}

/** A clock running `speed` times the wall's, reading `start` at the wall's `anchor` (both epoch ms). */
export function acceleratedClock(start: number, speed: number, anchor = Date.now()): Clock {
  const now = () => start + (Date.now() - anchor) * speed;
  return { now, speed, sleepUntil: (at, signal) => wallSleep(Math.max(0, (at - now()) / speed), signal) };
}

export const wallClock: Clock = {
  now: () => Date.now(),
  speed: 1,
  sleepUntil: (at, signal) => wallSleep(Math.max(0, at - Date.now()), signal),
};

/** Node's timers take at most 2^31-1 ms; a longer wait is slept in parts. */
const MAX_TIMER = 2_147_483_647;

function wallSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const end = Date.now() + ms;
    let timer: NodeJS.Timeout;
    const wake = () => {
      const left = end - Date.now();
      if (left > 0) timer = setTimeout(wake, Math.min(left, MAX_TIMER));
      else done();
    };
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    signal?.addEventListener('abort', done, { once: true });
    timer = setTimeout(wake, Math.min(ms, MAX_TIMER));
  });
}

const instant = z.iso.datetime({ offset: true }).transform((text) => Date.parse(text));

/**
 * ODSNAP_CLOCK, e.g. `start=2026-11-01T00:00:00Z speed=60 anchor=1795000000000`: this clock reads
 * `start` at the wall's `anchor` (epoch ms; by default when the process read it) and runs `speed`
 * times as fast. Only for tests and benches: a mirror on it stamps its captures in its time.
 */
const clockSetting = z
  .string()
  .transform((text) =>
    Object.fromEntries(
      text
        .trim()
        .split(/\s+/)
        .map((part) => part.split('=', 2) as [string, string]),
    ),
  )
  .pipe(
    z
      .object({
        start: instant,
        speed: z.string().transform(Number).pipe(z.number().positive().max(1_000_000)),
        anchor: z.string().transform(Number).pipe(z.number().int().nonnegative()).optional(),
      })
      .strict(),
  );

/** The clock ODSNAP_CLOCK sets, else the wall's; a setting that is not one is an error that says how it is written. */
export function clockFromEnvironment(env: NodeJS.ProcessEnv = process.env): Clock {
  const text = env.ODSNAP_CLOCK;
  if (!text) return wallClock;
  const parsed = clockSetting.safeParse(text);
  if (!parsed.success)
    throw new Error(`ODSNAP_CLOCK must read "start=<ISO instant> speed=<number> [anchor=<epoch ms>]", not "${text}": ${parsed.error.issues[0]!.message}`);
  return acceleratedClock(parsed.data.start, parsed.data.speed, parsed.data.anchor);
}

/** The ODSNAP_CLOCK text of an accelerated clock, to hand to another process so that both read one time. */
export const clockSettingOf = (start: number, speed: number, anchor: number) => `start=${new Date(start).toISOString()} speed=${speed} anchor=${anchor}`;
