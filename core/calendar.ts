/** Calendar days as v1 writes them (YYYY-MM-DD), with arithmetic done in UTC so no time zone leaks in. */

const DAY_MS = 86_400_000;

export const dayToUtcMs = (day: string): number => Date.parse(`${day}T00:00:00Z`);

/** The last day asked for: series ask for the same day row after row. */
let lastDay = { index: NaN, text: '' };

export function utcDayOf(ms: number): string {
  const index = Math.floor(ms / DAY_MS);
  if (index !== lastDay.index) lastDay = { index, text: new Date(index * DAY_MS).toISOString().slice(0, 10) };
  return lastDay.text;
}

export const addDays = (day: string, days: number): string => utcDayOf(dayToUtcMs(day) + days * DAY_MS);

/** Whole days from `from` to `to`: 0 for the same day. */
export const daysBetween = (from: string, to: string): number => Math.round((dayToUtcMs(to) - dayToUtcMs(from)) / DAY_MS);

/** 0 = Monday … 6 = Sunday. */
export const weekdayOf = (day: string): number => (new Date(dayToUtcMs(day)).getUTCDay() + 6) % 7;

/** Every day from `from` to `to`, both included. */
export function* eachDay(from: string, to: string): Generator<string> {
  for (let ms = dayToUtcMs(from), end = dayToUtcMs(to); ms <= end; ms += DAY_MS) yield utcDayOf(ms);
}
