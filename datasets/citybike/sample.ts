import type { RowOf } from '../../core/table.ts';
import { daysBetween, eachDay, weekdayOf } from '../../core/calendar.ts';
import type { Random } from '../vocabulary/random.ts';
import { city, distanceKm } from '../vocabulary/sample-city.ts';
import { cyclingFactor, cyclingMonths, weatherOn } from '../vocabulary/sample-weather.ts';
import type { SampleGenerator } from '../vocabulary/sample.ts';
import { zonedDayStart } from '../../core/zoned-time.ts';
import { inRowOrder } from '../../core/row-order.ts';
import { bikeAt, fleetIn, hourDraws, SEASON_END, SEASON_START, sizes, type Bike } from './sample-fleet.ts';
import { writeLiveMap } from './sample-live.ts';
import { inService, search, ZoneDraw, zonePool, type PoolZone } from './sample-zones.ts';
import type * as tables from './tables.ts';
import { rides as ridesTable } from './tables.ts';

/**
 * The sample bike share: a fleet that grows by a few per cent a year, zones that open, close or
 * come for one summer, and rides from March to November that follow commute hours, weather and
 * the distance between zones. Season statistics are summed from the rides themselves.
 */

const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals;

type RideRow = RowOf<typeof tables.rides.columns>;

function rideOn(day: string, dayStart: number, draw: ZoneDraw, random: Random, fleet: readonly Bike[], year: number): RideRow {
  const weekend = weekdayOf(day) >= 5;
  const hour = search(weekend ? hourDraws.weekend : hourDraws.weekday, random.next());
  const startedAt = dayStart + (hour * 3600 + random.int(0, 3599)) * 1000;
  const from = draw.start(random);
  const bike = fleet[random.int(0, fleet.length - 1)]!;
  const u = random.next();
  const to = u < 0.06 ? null : u < 0.14 ? from : draw.finish(from, random);
  const straight = to === null ? 0 : distanceKm(draw.zones[from]!, draw.zones[to]!);
  const distance = round(
    Math.min(25, to === null ? random.logNormal(2.5, 0.6) : to === from ? random.logNormal(3, 0.5) : Math.max(0.4, straight * random.between(1.2, 1.5))),
    2,
  );
  const speed = Math.min(bike.speed * 1.5, Math.max(bike.speed * 0.6, random.normal(bike.speed, 1.8)));
  const seconds = Math.round((distance / speed) * 3600 + random.between(20, 180));
  return {
    season_year: year,
    started_zone_id: draw.zones[from]!.id,
    finished_zone_id: to === null ? null : draw.zones[to]!.id,
    started_at: startedAt,
    finished_at: startedAt + seconds * 1000,
    distance,
    average_speed: round(distance / (seconds / 3600), 2),
    rating: random.chance(0.15)
      ? random.weighted([
          [5, 55],
          [4, 25],
          [3, 10],
          [2, 5],
          [1, 5],
        ] as const)
      : null,
  };
}

export const generate: SampleGenerator<typeof tables> = (context, out) => {
  const pool = zonePool(context, sizes[context.scale].zones);
  const closedBy = (zone: PoolZone, day: string) => (zone.closesAfter !== null && (zone.temporary || zone.closesAfter <= day) ? zone.closesAfter : null);
  for (const zone of pool.filter((z) => z.activeFrom <= context.until)) {
    out.zones.write({
      id: zone.id,
      name: zone.name,
      active_from: zone.activeFrom,
      active_to: closedBy(zone, context.until),
      temporary: zone.temporary,
      lat: zone.lat,
      lon: zone.lon,
    });
  }
  const untilYear = Number(context.until.slice(0, 4));
  for (let i = 0; i < fleetIn(context, untilYear); i++) {
    const { number, type } = bikeAt(context, i);
    out.bikes.write({ number, type });
  }

  let draw: ZoneDraw | undefined;
  let drawKey = '';
  for (let year = Number(context.start.slice(0, 4)); year <= untilYear; year++) {
    const fleet = Array.from({ length: fleetIn(context, year) }, (_, i) => bikeAt(context, i));
    const from = [`${year}-${SEASON_START}`, context.start].sort()[1]!;
    const to = [`${year}-${SEASON_END}`, context.until].sort()[0]!;
    if (from > to) continue;
    let rides = 0,
      distance = 0,
      seconds = 0;
    for (const day of eachDay(from, to)) {
      const zones = pool.filter((z) => inService(z, day));
      const key = zones.map((z) => z.id).join();
      if (key !== drawKey) [draw, drawKey] = [new ZoneDraw(zones), key];
      const weekday = weekdayOf(day);
      const rate =
        sizes[context.scale].ridesPerDay * cyclingMonths[Number(day.slice(5, 7)) - 1]! * (weekday < 5 ? 1.05 : 0.85) * cyclingFactor(weatherOn(context, day));
      const random = context.random('citybike', 'rides', day);
      const dayStart = zonedDayStart(day, city.timeZone);
      const completed = Array.from({ length: random.poisson(rate) }, () => rideOn(day, dayStart, draw!, random, fleet, year)).filter(
        (ride) => ride.finished_at < context.now,
      );
      // Written in the table's order, so the snapshot writer need not sort them again.
      for (const ride of inRowOrder(ridesTable, completed)) {
        out.rides.write(ride);
        rides++;
        distance += ride.distance;
        seconds += (ride.finished_at - ride.started_at) / 1000;
      }
    }
    const days = daysBetween(from, to) + 1;
    const bikes = fleetIn(context, year);
    const zones = pool.filter((z) => z.activeFrom <= to && (z.closesAfter === null || z.closesAfter >= from)).length;
    const totalDistanceKm = round(distance, 2);
    const totalDurationMin = round(seconds / 60, 2);
    out.seasons.write({
      year,
      active_from: from,
      active_to: to,
      days,
      rides_count: rides,
      bikes_count: bikes,
      zones_count: zones,
      total_distance_km: totalDistanceKm,
      total_duration_min: totalDurationMin,
      rides_per_day: round(rides / days, 3),
      rides_per_bike_per_day: round(rides / bikes / days, 3),
      rides_per_station_per_day: round(rides / zones / days, 3),
      distance_per_bike_per_day_km: round(totalDistanceKm / bikes / days, 3),
      duration_per_bike_per_day_min: round(totalDurationMin / bikes / days, 3),
    });
  }
  writeLiveMap(
    context,
    pool.filter((z) => inService(z, context.until)),
    context.now,
    out,
  );
};
