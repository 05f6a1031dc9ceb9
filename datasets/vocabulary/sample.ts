import type { RowOf, TableSpec } from '../../core/table.ts';
import { addDays } from '../../core/calendar.ts';
import { Random } from './random.ts';
import { city } from './sample-city.ts';
import { zonedDayStart } from '../../core/zoned-time.ts';

/** `region` is the city four times over in the same streets: the register, fleet, counters and stations of about four cities, for the cost curve. */
export const scales = ['tiny', 'small', 'city', 'region'] as const;
export type Scale = (typeof scales)[number];

/** Where the city's history begins at each scale. Fixed, so a later `until` only adds days. */
export const historyStart: Readonly<Record<Scale, string>> = {
  tiny: '2024-10-01',
  small: '2021-01-01',
  city: '2020-01-01',
  region: '2020-01-01',
};

export const defaultUntil = '2025-09-30';
export const defaultSeed = 1;

export interface SampleSettings {
  readonly scale: Scale;
  readonly seed: number;
  /** The sample's "today": the last day with data. */
  readonly until: string;
}

export interface SampleContext extends SampleSettings {
  /** First day of history. */
  readonly start: string;
  /** The sample's clock: the end of `until` in the city's time zone, when live data is captured. */
  readonly now: number;
  /** A random stream for the given keys: same seed and keys, same numbers. */
  random(...keys: readonly (string | number)[]): Random;
}

export function sampleContext(settings: SampleSettings): SampleContext {
  return {
    ...settings,
    start: historyStart[settings.scale],
    now: zonedDayStart(addDays(settings.until, 1), city.timeZone),
    random: (...keys) => new Random([settings.seed, ...keys].join('\u241f')),
  };
}

/** Where a generator puts rows; `extra` is left out, the sample sends nothing beyond the spec. */
export interface RowSink<R> {
  write(row: R): void;
}

// Each table has its own columns; `any` lets one type cover them all.
export type RowSinks<T extends Readonly<Record<string, TableSpec<any>>>> = {
  readonly [K in keyof T]: RowSink<RowOf<T[K]['columns']>>;
};

/** A data set's part of the sample city: writes every row of every table of the data set. */
// Each table has its own columns; `any` lets one type cover them all.
export type SampleGenerator<T extends Readonly<Record<string, TableSpec<any>>>> = (context: SampleContext, out: RowSinks<T>) => void | Promise<void>;

/**
 * A data set's live part of the sample city at one instant: the rows its live answers read as the
 * upstream shows them at `at`, a minute of the day after `context.until` (from `context.now`, the
 * midnight it begins, to the next). Deterministic in the seed and the minute; at `context.now`
 * exactly, the live rows the generator writes. A city that moves (`odsnap sample --serve`) answers
 * its live endpoints from these.
 */
// Each table has its own columns; `any` lets one type cover them all.
export type SampleLive<T extends Readonly<Record<string, TableSpec<any>>>> = (context: SampleContext, at: number, out: RowSinks<T>) => void;
