import { addDays, dayToUtcMs } from '../../core/calendar.ts';
import type { SampleContext } from './sample.ts';

/**
 * The sample city's daily weather, shared by every generator so that a rainy day empties the bike
 * paths and a cold, calm week brings smog. A pure function of the seed and the day: anomalies are
 * averages of the last few days' draws, so weather persists without any state.
 */
export interface Weather {
  /** Daily mean temperature, °C. */
  readonly tempC: number;
  /** Rain over the day, mm. */
  readonly rainMm: number;
  /** High pressure and little wind: pollutants accumulate. */
  readonly calm: boolean;
}

const cache = new Map<string, Weather>();

const dayOfYear = (day: string) => (dayToUtcMs(day) - dayToUtcMs(`${day.slice(0, 4)}-01-01`)) / 86_400_000;

/** Seasonal mean for a Polish lowland city: about −1.5 °C in mid-January, 19.5 °C in mid-July. */
export const normalTempC = (day: string) => 9 + 10.5 * Math.sin((2 * Math.PI * (dayOfYear(day) - 105)) / 365);

/** Chance of a rainy day by month (January = 0). */
const rainChance = [0.35, 0.3, 0.3, 0.3, 0.35, 0.4, 0.4, 0.35, 0.3, 0.32, 0.4, 0.4];

export function weatherOn(context: SampleContext, day: string): Weather {
  const key = `${context.seed}/${day}`;
  const cached = cache.get(key);
  if (cached) return cached;
  let anomaly = 0;
  let pressure = 0;
  for (let back = 0; back < 5; back++) {
    const random = context.random('weather', addDays(day, -back));
    anomaly += random.normal(0, 3.2) / 5;
    pressure += random.normal(0, 1) / 5;
  }
  const today = context.random('weather', day, 'today');
  const month = Number(day.slice(5, 7)) - 1;
  const weather: Weather = {
    tempC: Math.round((normalTempC(day) + anomaly * 2.2) * 10) / 10,
    rainMm: today.chance(rainChance[month]! * (pressure > 0.3 ? 0.4 : 1)) ? Math.round(today.logNormal(2.5, 1) * 10) / 10 : 0,
    calm: pressure > 0.5,
  };
  if (cache.size > 50_000) cache.clear();
  cache.set(key, weather);
  return weather;
}

/** How weather scales cycling against a dry day of 15 °C (after Eco-Counter loop studies). */
export function cyclingFactor(weather: Weather): number {
  const temperature = Math.min(1.25, Math.max(0.35, 1 + 0.026 * (weather.tempC - 15)));
  const rain = weather.rainMm === 0 ? 1 : Math.max(0.4, 1 - 0.12 * Math.sqrt(weather.rainMm) - 0.15);
  return temperature * rain;
}

/** Share of a day's bicycle traffic by local hour, % (weekday: commute peaks; weekend: midday). */
export const cyclingHours = {
  weekday: [0.4, 0.2, 0.1, 0.1, 0.2, 0.8, 2.8, 7.8, 9.5, 5.0, 4.0, 4.0, 4.6, 5.0, 6.0, 8.0, 10.5, 10.0, 7.6, 5.6, 3.5, 2.3, 1.3, 0.7],
  weekend: [0.6, 0.3, 0.2, 0.1, 0.1, 0.3, 0.8, 1.8, 3.2, 5.0, 7.5, 8.8, 9.3, 9.4, 9.3, 9.1, 8.7, 7.9, 6.0, 4.5, 3.2, 2.0, 1.2, 0.7],
};

/** Cycling by month relative to the year's mean (January = 0). */
export const cyclingMonths = [0.4, 0.45, 0.8, 1.15, 1.45, 1.55, 1.5, 1.45, 1.35, 1.0, 0.55, 0.35];
