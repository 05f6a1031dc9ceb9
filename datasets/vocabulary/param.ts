import { z } from 'zod';
import { daysBetween } from '../../core/calendar.ts';
import { doc } from './field.ts';
import { canonicalTimeZone } from '../../core/zoned-time.ts';

/**
 * Query and path parameters arrive as text. Each parser here turns text into a typed value or
 * fails with a message that completes the sentence "<name> …", e.g. "limit must be a whole number
 * from 1 to 100", which the server puts in its problem body. Parameters are optional unless
 * declared `required`, as in the spec.
 */

export interface ParamOptions {
  readonly required?: boolean;
}

const mustBe = (what: string) => (issue: { input: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`);

function finish<T extends z.ZodType>(schema: T, en: string, pl: string, options: ParamOptions = {}) {
  return options.required ? doc(schema, en, pl) : doc(schema.optional(), en, pl);
}

const wholeNumberText = (value: unknown) => (typeof value === 'string' && /^[+-]?\d{1,16}$/.test(value) ? Number(value) : value);

export function integer(range: { min: number; max: number; default?: number }, en: string, pl: string, options?: ParamOptions) {
  const what = `a whole number from ${range.min} to ${range.max}`;
  const number = z
    .number({ error: mustBe(what) })
    .int({ error: `must be ${what}` })
    .min(range.min, { error: `must be ${what}` })
    .max(range.max, { error: `must be ${what}` });
  if (range.default !== undefined) return doc(z.preprocess(wholeNumberText, number.default(range.default)), en, pl);
  return finish(z.preprocess(wholeNumberText, number), en, pl, options);
}

export const text = (en: string, pl: string, options: ParamOptions & { maxLength?: number } = {}) => {
  const maxLength = options.maxLength ?? 500;
  return finish(
    z
      .string({ error: mustBe('text') })
      .min(1, { error: 'must not be empty' })
      .regex(/^[^\u0000-\u001f\u007f]*$/, { error: 'must not contain control characters' })
      .max(maxLength, { error: `must be at most ${maxLength} characters` }),
    en,
    pl,
    options,
  );
};

export const day = (en: string, pl: string, options?: ParamOptions) =>
  finish(z.iso.date({ error: mustBe('a real calendar date, YYYY-MM-DD') }), en, pl, options);

/**
 * A decimal bound such as `grossPriceFrom=250000.50`, kept as text so comparisons stay exact. Any
 * number of fraction digits (the server rounds a bound to what its column stores, keeping the
 * same rows); up to 15 digits before the point, as a bound beyond that would not be a price or an area.
 */
export const decimal = (en: string, pl: string, options?: ParamOptions) =>
  finish(
    z
      .string({ error: mustBe('a decimal number such as 250000.50') })
      .regex(/^-?\d{1,15}(\.\d{1,30})?$/, { error: 'must be a decimal number such as 250000.50, with at most 15 digits before the point and 30 after' })
      .meta({ format: 'decimal' }),
    en,
    pl,
    options,
  );

export const timezone = (en: string, pl: string) =>
  doc(
    z
      .string()
      .default('UTC')
      .transform((name, context) => {
        const canonical = canonicalTimeZone(name);
        if (!canonical) context.addIssue({ code: 'custom', message: 'must be an IANA time zone such as Europe/Warsaw' });
        return canonical ?? name;
      }),
    en,
    pl,
  );

export interface BoundingBox {
  readonly minLon: number;
  readonly minLat: number;
  readonly maxLon: number;
  readonly maxLat: number;
}

/** `minLongitude,minLatitude,maxLongitude,maxLatitude` in EPSG:4326. */
export const bbox = (en: string, pl: string, options?: ParamOptions) =>
  finish(
    z
      .string()
      .transform((value, context): BoundingBox => {
        const parts = value.split(',').map((part) => (/^\s*-?\d+(\.\d+)?\s*$/.test(part) ? Number(part) : NaN));
        const [minLon, minLat, maxLon, maxLat] = parts as [number, number, number, number];
        const ok =
          parts.length === 4 &&
          parts.every(Number.isFinite) &&
          minLon >= -180 &&
          maxLon <= 180 &&
          minLat >= -90 &&
          maxLat <= 90 &&
          minLon <= maxLon &&
          minLat <= maxLat;
        if (!ok) {
          context.addIssue({
            code: 'custom',
            message: 'must be minLongitude,minLatitude,maxLongitude,maxLatitude in degrees, with min ≤ max',
          });
          return z.NEVER;
        }
        return { minLon, minLat, maxLon, maxLat };
      })
      .meta({ format: 'bbox', examples: ['20.95,52.20,21.05,52.26'] }),
    en,
    pl,
    options,
  );

/** Every v1 endpoint takes `version`; only `v1` (or nothing) is accepted. */
export const version = doc(
  z.literal('v1', { error: 'must be v1, the only interface version' }).optional(),
  'Interface version. Optional; the only version is v1.',
  'Wersja interfejsu. Opcjonalna; jedyną wersją jest v1.',
);

/** Limits that involve more than one parameter; each names the parameter it blames. */
export interface ParamRule {
  readonly param: string;
  readonly check: (params: Record<string, unknown>) => string | undefined;
}

const bothDays = (p: Record<string, unknown>, from: string, to: string) => typeof p[from] === 'string' && typeof p[to] === 'string';

export const dayOrder = (from: string, to: string): ParamRule => ({
  param: to,
  check: (p) => (bothDays(p, from, to) && (p[to] as string) < (p[from] as string) ? `must not be before ${from}` : undefined),
});

export const maxDaySpan = (from: string, to: string, maxDays: number): ParamRule => ({
  param: to,
  check: (p) =>
    bothDays(p, from, to) && daysBetween(p[from] as string, p[to] as string) + 1 > maxDays
      ? `must be at most ${maxDays - 1} days after ${from} (${from}..${to} covers at most ${maxDays} days)`
      : undefined,
});

/** The `from`, `to` and `timezone` parameters of a date-range endpoint, with their rules. */
export function dayRange(options: { maxDays?: number } = {}): { params: z.ZodRawShape; rules: ParamRule[] } {
  const limit = options.maxDays
    ? { en: `; the range covers at most ${options.maxDays} days`, pl: `; zakres obejmuje najwyżej ${options.maxDays} dni` }
    : { en: '', pl: '' };
  return {
    params: {
      from: day('First day of the range, YYYY-MM-DD. Required.', 'Pierwszy dzień zakresu, RRRR-MM-DD. Wymagany.', { required: true }),
      to: day(`Last day of the range, YYYY-MM-DD, included. Required${limit.en}.`, `Ostatni dzień zakresu, RRRR-MM-DD, włącznie. Wymagany${limit.pl}.`, {
        required: true,
      }),
      timezone: timezone(
        'IANA time zone used to read the range and to show timestamps; default UTC.',
        'Strefa czasowa IANA do odczytu zakresu i prezentacji czasu; domyślnie UTC.',
      ),
    },
    rules: [dayOrder('from', 'to'), ...(options.maxDays ? [maxDaySpan('from', 'to', options.maxDays)] : [])],
  };
}
