import { addDays, weekdayOf } from '../../core/calendar.ts';
import { zonedDayStart } from '../../core/zoned-time.ts';
import type { Random } from '../vocabulary/random.ts';
import { city, distanceKm, offsetPosition, pickDistrict, positionNear, roundCoordinate, type Position } from '../vocabulary/sample-city.ts';
import { cyclingFactor, cyclingMonths, weatherOn } from '../vocabulary/sample-weather.ts';
import type { RowSinks, SampleContext, SampleLive } from '../vocabulary/sample.ts';
import { bikeAt, fleetIn, hourDraws, inSeason, sizes } from './sample-fleet.ts';
import { inService, search, ZoneDraw, zonePool, type PoolZone } from './sample-zones.ts';
import type * as tables from './tables.ts';

/**
 * The sample bike share's live map, minute by minute. At each midnight the operator's overnight
 * rebalancing sets the map out afresh: where each bicycle stands and whether it can be rented,
 * the map the generator writes for the day before. Through the day each bicycle lives its own
 * plan: a few trips at commute and leisure hours (none out of season), during which it is taken
 * and moves minute by minute to a zone near its start; spells out of service (a flat battery, a
 * reported defect); a repair for one that started the day out of service.
 */

/** Trips a bicycle makes on an average day of the season, before month and weather. */
const TRIPS_PER_DAY = 3;

interface Trip {
  /** Minutes after the day's midnight. */
  readonly start: number;
  readonly end: number;
  readonly from: Position;
  readonly to: Position;
}

/** A bicycle's day: where it stands at midnight, its trips, and the minutes it cannot be rented. */
interface BikeDay {
  readonly parked: Position;
  readonly trips: readonly Trip[];
  readonly unavailable: readonly (readonly [number, number])[];
}

const MINUTE = 60_000;

/** The live map: the zones in service on the day before the map's day. */
export const live: SampleLive<typeof tables> = (context, at, out) =>
  writeLiveMap(
    context,
    zonePool(context, sizes[context.scale].zones).filter((z) => inService(z, context.until)),
    at,
    out,
  );

/** The live map at `at`, a minute of the day after `context.until`; at `context.now`, as the rebalancing left it. */
export function writeLiveMap(context: SampleContext, zones: readonly PoolZone[], at: number, out: RowSinks<typeof tables>) {
  const random = context.random('citybike', 'live', context.until);
  const draw = new ZoneDraw(zones);
  const day = addDays(context.until, 1);
  const dayMinutes = (zonedDayStart(addDays(day, 1), city.timeZone) - context.now) / MINUTE;
  const minute = Math.floor((at - context.now) / MINUTE);
  const tripsPerDay = inSeason(day) ? TRIPS_PER_DAY * cyclingMonths[Number(day.slice(5, 7)) - 1]! * cyclingFactor(weatherOn(context, day)) : 0;
  for (let i = 0; i < fleetIn(context, Number(context.until.slice(0, 4))); i++) {
    const { number, type, speed } = bikeAt(context, i);
    // The rebalanced map's draws, in the order the generator has always made them.
    const zone = random.chance(0.9) ? draw.start(random) : undefined;
    const spot = zone === undefined ? positionNear(random, pickDistrict(random), 2) : zones[zone]!;
    const parked = positionNear(random, spot, 0.03);
    const rentable = random.chance(0.82);
    const plan = context.random('citybike', 'live', context.until, 'bike', i);
    const bikeDay = planDay(plan, { parked, zone, rentable, speed, tripsPerDay, weekend: weekdayOf(day) >= 5, dayMinutes }, draw);
    const { position, available } = stateAt(bikeDay, minute);
    out.live_bikes.write({ captured_at: at, number, available, type, lat: position.lat, lon: position.lon });
  }
  for (const zone of zones) {
    const radius = random.between(25, 45);
    const area = Array.from({ length: 7 }, (_, k) => {
      const p = offsetPosition(zone, radius * Math.cos((k * Math.PI) / 3), radius * Math.sin((k * Math.PI) / 3));
      return [p.lon, p.lat];
    });
    out.live_zones.write({ captured_at: at, name: zone.name, type: zone.temporary ? 'temporary' : 'zone', lat: zone.lat, lon: zone.lon, area });
  }
}

interface Morning {
  readonly parked: Position;
  /** The zone it was set out at, if any. */
  readonly zone: number | undefined;
  readonly rentable: boolean;
  /** km/h */
  readonly speed: number;
  readonly tripsPerDay: number;
  readonly weekend: boolean;
  readonly dayMinutes: number;
}

/** A bicycle's day as drawn from its own stream; nothing starts at minute 0, so midnight shows the rebalanced map. */
function planDay(random: Random, morning: Morning, draw: ZoneDraw): BikeDay {
  const { dayMinutes } = morning;
  const someMinute = () => random.int(1, dayMinutes - 1);
  if (!morning.rentable) {
    // Out of service at dawn: repaired during the day, or not.
    const repairedAt = random.chance(0.5) ? someMinute() : dayMinutes;
    return { parked: morning.parked, trips: [], unavailable: [[0, repairedAt]] };
  }
  const unavailable = Array.from({ length: random.poisson(0.6) }, () => {
    const from = someMinute();
    return [from, from + random.int(15, 180)] as const;
  });
  const starts = Array.from(
    { length: random.poisson(morning.tripsPerDay) },
    () => search(morning.weekend ? hourDraws.weekend : hourDraws.weekday, random.next()) * 60 + random.int(0, 59),
  ).sort((a, b) => a - b);
  const trips: Trip[] = [];
  let [at, zone, free] = [morning.parked, morning.zone, 1];
  for (const drawn of starts) {
    const start = Math.max(drawn, free);
    const next = zone === undefined ? draw.start(random) : draw.finish(zone, random);
    const to = positionNear(random, draw.zones[next]!, 0.03);
    const minutes = Math.max(2, Math.round(((distanceKm(at, to) * 1.3) / morning.speed) * 60 + random.between(1, 4)));
    if (start + minutes >= dayMinutes) break;
    trips.push({ start, end: start + minutes, from: at, to });
    [at, zone, free] = [to, next, start + minutes + random.int(2, 30)];
  }
  return { parked: morning.parked, trips, unavailable };
}

/** Where a bicycle is at a minute of its day, and whether it can be rented: taken while on a trip, moving from its start to its end. */
function stateAt(day: BikeDay, minute: number): { position: Position; available: boolean } {
  let position = day.parked;
  for (const trip of day.trips) {
    if (minute < trip.start) break;
    if (minute < trip.end) {
      const done = (minute - trip.start) / (trip.end - trip.start);
      const lat = roundCoordinate(trip.from.lat + (trip.to.lat - trip.from.lat) * done);
      const lon = roundCoordinate(trip.from.lon + (trip.to.lon - trip.from.lon) * done);
      return { position: { lat, lon }, available: false };
    }
    position = trip.to;
  }
  return { position, available: !day.unavailable.some(([from, to]) => minute >= from && minute < to) };
}
