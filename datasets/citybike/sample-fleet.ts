import type { SampleContext, Scale } from '../vocabulary/sample.ts';
import { cumulate } from './sample-zones.ts';
import { cyclingHours } from '../vocabulary/sample-weather.ts';

/** The sample bike share's fleet and season, shared by its history (sample.ts) and its live map (sample-live.ts). */

export const sizes: Record<Scale, { bikes: number; zones: number; ridesPerDay: number }> = {
  tiny: { bikes: 40, zones: 12, ridesPerDay: 10 },
  small: { bikes: 400, zones: 60, ridesPerDay: 74 },
  city: { bikes: 3200, zones: 330, ridesPerDay: 3050 },
  region: { bikes: 12_800, zones: 1320, ridesPerDay: 12_200 },
};

/** Fleet mix (share, %) and typical door-to-door speed (km/h) per bicycle type. */
const bikeTypes = [
  ['standard', 91, 10.5],
  ['electric', 6, 15],
  ['tandem', 1.5, 8.5],
  ['child', 1.5, 7.5],
] as const;

export const SEASON_START = '03-01';
export const SEASON_END = '11-30';

/** Whether bikes are out on a day: the season runs from March to November. */
export const inSeason = (day: string) => day.slice(5) >= SEASON_START && day.slice(5) <= SEASON_END;

/** Bicycles in service in a year: the fleet grows 4 % a year towards the scale's size. */
export const fleetIn = (context: SampleContext, year: number) =>
  Math.max(Math.round(sizes[context.scale].bikes * 0.6), Math.round(sizes[context.scale].bikes * (1 + 0.04 * (year - 2025))));

export function bikeAt(context: SampleContext, index: number) {
  const random = context.random('citybike', 'bike', index);
  const [type, , speed] = random.weighted(bikeTypes.map((t) => [t, t[1]] as const));
  return { number: String(61_000 + index * 3 + random.int(0, 2)), type, speed };
}

export type Bike = ReturnType<typeof bikeAt>;

/** Cumulative shares of a day's rides by local hour, to draw a ride's hour from. */
export const hourDraws = { weekday: cumulate(cyclingHours.weekday), weekend: cumulate(cyclingHours.weekend) };
