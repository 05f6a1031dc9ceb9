import { addDays, daysBetween, eachDay, weekdayOf } from '../../core/calendar.ts';
import { city, pickDistrict, positionNear, slugOf, streetsOf } from '../vocabulary/sample-city.ts';
import { cyclingFactor, cyclingHours, cyclingMonths, weatherOn } from '../vocabulary/sample-weather.ts';
import { defaultUntil, type SampleContext, type SampleGenerator, type Scale } from '../vocabulary/sample.ts';
import { zonedDayStart, zonedHourOf } from '../../core/zoned-time.ts';
import type * as tables from './tables.ts';

/**
 * The sample's bicycle counters: hourly counts with commute peaks on working days, a midday hump
 * at weekends, a summer high and a winter low, rainy days, outages of a few days, single missing
 * hours, counters installed over the years and one taken out of service.
 */

const sizes: Record<Scale, { counters: number }> = { tiny: { counters: 3 }, small: { counters: 12 }, city: { counters: 40 }, region: { counters: 160 } };

const sites = [
  'Most Poniatowskiego',
  'Wał Miedzeszyński',
  'Świętokrzyska',
  'Marszałkowska',
  'Most Świętokrzyski',
  'Bulwary Wiślane',
  'Żwirki i Wigury',
  'Puławska',
  'Aleja Niepodległości',
  'Most Gdański',
  'Trasa Siekierkowska',
  'Czerniakowska',
  'Rondo Daszyńskiego',
  'Aleja Jana Pawła II',
  'Wybrzeże Kościuszkowskie',
  'Targowa',
  'Modlińska',
  'Grochowska',
  'Banacha',
  'Kopernika',
];
const leisure = /Wał|Bulwary|Wybrzeże/;

interface Site {
  readonly id: string;
  readonly name: string;
  readonly provider: string;
  readonly externalId: string | null;
  readonly lat: number;
  readonly lon: number;
  readonly activeFrom: number;
  /** When the counter was switched off, if it has been by the sample's "now". */
  readonly activeTo: number | null;
  /** Bicycles a day on a dry summer working day. */
  readonly busiest: number;
  /** Weekend traffic relative to working days. */
  readonly weekend: number;
}

function siteOf(context: SampleContext, index: number, taken: Set<string>): Site {
  const random = context.random('bike-counter', 'counter', index);
  const district = pickDistrict(random, (d) => !d.suburban);
  const name = sites[index] ?? `${random.pick(streetsOf(district))} (${district.name})`;
  let id = slugOf(name);
  while (taken.has(id)) id += '-2';
  taken.add(id);
  const telraam = index % 5 === 4;
  const history = daysBetween(context.start, defaultUntil);
  const installed =
    index < Math.max(2, sizes[context.scale].counters * 0.6)
      ? addDays(context.start, -random.int(0, 700))
      : addDays(context.start, random.int(30, Math.round(history * 0.7)));
  // The second counter is taken out of service part-way through the history.
  const retired = index === 1 ? zonedDayStart(addDays(context.start, Math.round(history * 0.6)), city.timeZone) : null;
  const { lat, lon } = positionNear(random, district, district.radiusKm * 0.7);
  return {
    id,
    name,
    provider: telraam ? 'Telraam' : 'Eco-Counter',
    externalId: index === 2 ? null : telraam ? String(9_000_000_000 + random.int(0, 999_999)) : String(100_040_000 + random.int(0, 99_999)),
    lat,
    lon,
    activeFrom: zonedDayStart(installed, city.timeZone),
    activeTo: retired !== null && retired <= context.now ? retired : null,
    busiest: Math.min(9000, Math.max(300, random.logNormal(2200, 0.5))),
    weekend: leisure.test(name) ? random.between(1.1, 1.4) : random.between(0.6, 0.8),
  };
}

/** Outages start on a day with a small chance and last up to ten days: look back ten days. */
function inOutage(context: SampleContext, id: string, day: string): boolean {
  for (let back = 0; back < 10; back++) {
    const random = context.random('bike-counter', 'outage', id, addDays(day, -back));
    if (random.chance(0.004) && random.int(1, 10) > back) return true;
  }
  return false;
}

export const generate: SampleGenerator<typeof tables> = (context, out) => {
  const taken = new Set<string>();
  const all = Array.from({ length: sizes[context.scale].counters }, (_, i) => siteOf(context, i, taken));
  for (const site of all.filter((s) => s.activeFrom < context.now)) {
    const sync = context.random('bike-counter', 'sync', site.id, context.until);
    out.counters.write({
      id: site.id,
      name: site.name,
      provider: site.provider,
      external_id: site.externalId,
      lat: site.lat,
      lon: site.lon,
      active_from: site.activeFrom,
      active_to: site.activeTo,
      last_synchronized_at: site.activeTo ?? context.now - sync.int(5, 55) * 60_000,
    });
    const end = Math.min(site.activeTo ?? context.now, context.now);
    for (const day of eachDay(context.start, context.until)) {
      const dayStart = zonedDayStart(day, city.timeZone);
      const dayEnd = zonedDayStart(addDays(day, 1), city.timeZone);
      if (dayEnd <= site.activeFrom || dayStart >= end || inOutage(context, site.id, day)) continue;
      const weekend = weekdayOf(day) >= 5;
      const random = context.random('bike-counter', 'day', site.id, day);
      const expected =
        ((site.busiest * cyclingMonths[Number(day.slice(5, 7)) - 1]!) / 1.55) *
        (weekend ? site.weekend : 1) *
        cyclingFactor(weatherOn(context, day)) *
        random.logNormal(1, 0.1);
      const shares = weekend ? cyclingHours.weekend : cyclingHours.weekday;
      for (let hour = dayStart; hour < dayEnd; hour += 3_600_000) {
        const value = random.poisson((expected * shares[zonedHourOf(hour, city.timeZone)]!) / 100);
        if (hour < site.activeFrom || hour >= end || random.chance(0.003)) continue;
        out.readings.write({ counter_id: site.id, read_at: hour, value });
      }
    }
  }
};
