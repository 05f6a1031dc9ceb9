import type { Language } from '../../core/text.ts';
import { Memo } from '../../core/memo.ts';

/** Axes of the charts: round tick values, time ticks on calendar boundaries (UTC), labels in the page's language. */

export const locale = (lang: Language) => (lang === 'pl' ? 'pl-PL' : 'en-GB');

/**
 * Formatters, made once for each language and options. Each holds its locale's calendar and symbols
 * in native memory that V8's collector does not weigh, so one made per label of a chart of tens of
 * thousands of points held hundreds of megabytes until the collector happened by, and was most of
 * the site build's peak memory. The site asks for a few dozen kinds.
 */
const dateFormats = new Memo<string, Intl.DateTimeFormat>(256);
const numberFormats = new Memo<string, Intl.NumberFormat>(256);
export const dateFormat = (lang: Language, options: Intl.DateTimeFormatOptions) =>
  dateFormats.of(`${lang} ${JSON.stringify(options)}`, () => new Intl.DateTimeFormat(locale(lang), options));
export const numberFormat = (lang: Language, options: Intl.NumberFormatOptions = {}) =>
  numberFormats.of(`${lang} ${JSON.stringify(options)}`, () => new Intl.NumberFormat(locale(lang), options));

/**
 * Ticks at 1, 2, 2.5 or 5 × 10ⁿ covering [min, max], about `count` of them; the domain grows to the
 * outer ticks. `fractionDigits`: what a label needs to show every tick as it is (1012.5, not 1,013).
 */
export function niceTicks(min: number, max: number, count = 5): { ticks: number[]; min: number; max: number; fractionDigits: number } {
  if (!(max > min)) {
    const pad = Math.abs(min) > 0 ? Math.abs(min) * 0.1 : 1;
    return niceTicks(min - pad, max + pad, count);
  }
  const raw = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((candidate) => candidate >= raw)!;
  const low = Math.floor(min / step) * step;
  const high = Math.ceil(max / step) * step;
  const ticks: number[] = [];
  // Rounded to the step's precision, so 0.30000000000000004 reads 0.3.
  const digits = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  for (let value = low; value <= high + step / 2; value += step) ticks.push(Number(value.toFixed(digits)));
  const fractionDigits = String(Number(step.toFixed(digits))).split('.')[1]?.length ?? 0;
  return { ticks, min: low, max: high, fractionDigits };
}

/**
 * A number for an axis or a table: grouped, or compact (20K) on an axis whose values reach 10,000;
 * with at least `fractionDigits` where an axis's ticks need them.
 */
export function formatNumber(value: number, lang: Language, compact = false, fractionDigits = 0): string {
  const abs = Math.abs(value);
  if (compact) return numberFormat(lang, { notation: 'compact', maximumFractionDigits: 1 }).format(value);
  return numberFormat(lang, { maximumFractionDigits: Math.max(fractionDigits, abs >= 100 ? 0 : abs >= 1 ? 2 : 3) }).format(value);
}

/** Degrees of longitude or latitude with a fixed number of decimals, in the page's language (52,2297° in Polish). */
export const formatDegrees = (value: number, lang: Language, digits: number) =>
  `${numberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false }).format(value)}°`;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Epoch milliseconds of an x value: an ISO day (UTC midnight) or an instant. */
export const timeOf = (x: string) => Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(x) ? `${x}T00:00:00Z` : x);

interface TimeStep {
  readonly months: number;
  readonly days: number;
  readonly hours: number;
}

const HOUR_STEPS: readonly TimeStep[] = [1, 3, 6, 12].map((hours) => ({ months: 0, days: 0, hours }));

const STEPS: readonly TimeStep[] = [
  { months: 0, days: 1, hours: 0 },
  { months: 0, days: 7, hours: 0 },
  { months: 1, days: 0, hours: 0 },
  { months: 2, days: 0, hours: 0 },
  { months: 3, days: 0, hours: 0 },
  { months: 6, days: 0, hours: 0 },
  { months: 12, days: 0, hours: 0 },
  { months: 24, days: 0, hours: 0 },
  { months: 60, days: 0, hours: 0 },
];

/**
 * Time ticks between two instants on hour (for `instants`, data with a time of day), day, week
 * (Monday), month or year boundaries, at most `count` of them, labelled in the language. An hour
 * tick at midnight names its day.
 */
export function timeTicks(min: number, max: number, count: number, lang: Language, instants = false): { value: number; label: string }[] {
  const span = Math.max(max - min, instants ? HOUR : DAY);
  const steps = instants ? [...HOUR_STEPS, ...STEPS] : STEPS;
  const length = (step: TimeStep) => (step.months * 30.44 + step.days) * DAY + step.hours * HOUR;
  const step = steps.find((candidate) => span / length(candidate) <= count) ?? steps[steps.length - 1]!;
  const ticks: number[] = [];
  const start = new Date(min);
  if (step.months) {
    // The first month boundary at or after min that is a multiple of the step (Jan, Apr, Jul, … for quarters).
    const monthsFromYear0 = start.getUTCFullYear() * 12 + start.getUTCMonth();
    let month = Math.ceil(monthsFromYear0 / step.months) * step.months;
    if (Date.UTC(Math.floor(month / 12), month % 12, 1) < min) month += step.months;
    for (let t = Date.UTC(Math.floor(month / 12), month % 12, 1); t <= max; month += step.months, t = Date.UTC(Math.floor(month / 12), month % 12, 1))
      ticks.push(t);
  } else if (step.hours) {
    for (let t = Math.ceil(min / (step.hours * HOUR)) * step.hours * HOUR; t <= max; t += step.hours * HOUR) ticks.push(t);
  } else {
    let t = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate());
    if (step.days === 7) t += ((8 - new Date(t).getUTCDay()) % 7) * DAY; // the next Monday
    if (t < min) t += step.days * DAY;
    for (; t <= max; t += step.days * DAY) ticks.push(t);
  }
  const format = (options: Intl.DateTimeFormatOptions) => dateFormat(lang, { ...options, timeZone: 'UTC' });
  const day = format({ day: 'numeric', month: 'short' });
  const clock = format({ hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  const calendar = step.months >= 12 ? format({ year: 'numeric' }) : step.months ? format({ month: 'short', year: 'numeric' }) : day;
  const label = (value: number) => (step.hours ? (value % DAY === 0 ? day : clock) : calendar).format(value);
  return ticks.map((value) => ({ value, label: label(value) }));
}

/** A day or an instant for text: `2024-10-01`, or `2024-10-01 22:00 UTC` when the time matters. */
/** A day (or the day of an instant, in UTC) written out in the language, e.g. `3 March 2025`. */
export const formatDay = (iso: string, lang: Language) => dateFormat(lang, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(iso));

export function formatTime(value: string, withTime = false): string {
  if (!value.includes('T')) return value;
  const date = new Date(value);
  const day = date.toISOString().slice(0, 10);
  return withTime ? `${day} ${date.toISOString().slice(11, 16)} UTC` : day;
}

/** A span of time in its largest whole unit, in the language: `3 hr`, `2 days`, `45 s` (`3 godz.` in Polish). */
export function formatDuration(seconds: number, lang: Language): string {
  const units = [
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ] as const;
  const [unit, size] = units.find(([, size]) => Math.abs(seconds) >= size) ?? ['second', 1];
  return numberFormat(lang, { style: 'unit', unit, unitDisplay: 'long', maximumFractionDigits: 1 }).format(seconds / size);
}
