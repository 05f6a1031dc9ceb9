import type { RowOf } from '../../core/table.ts';
import type { ParseContext } from '../vocabulary/parse.ts';
import type { Bike, LiveBike, LiveZone, Ride, Season, Zone } from './resources.ts';
import { instantMs } from '../../core/zoned-time.ts';
import type * as tables from './tables.ts';

/** How upstream bike-share records become rows: the inverses of render.ts. */

export const parseBike = (b: Bike): RowOf<typeof tables.bikes.columns> => ({ number: b.number, type: b.type });

export const parseZone = (z: Zone): RowOf<typeof tables.zones.columns> => ({
  id: z.id,
  name: z.name,
  active_from: z.activeFrom,
  active_to: z.activeTo,
  temporary: z.temporary,
  lat: z.location.lat,
  lon: z.location.lon,
});

export const parseSeason = (s: Season): RowOf<typeof tables.seasons.columns> => ({
  year: s.year,
  active_from: s.activeFrom,
  active_to: s.activeTo,
  days: s.days,
  rides_count: s.ridesCount,
  bikes_count: s.bikesCount,
  zones_count: s.zonesCount,
  total_distance_km: s.totalDistanceKm,
  total_duration_min: s.totalDurationMin,
  rides_per_day: s.ridesPerDay,
  rides_per_bike_per_day: s.ridesPerBikePerDay,
  rides_per_station_per_day: s.ridesPerStationPerDay,
  distance_per_bike_per_day_km: s.distancePerBikePerDayKm,
  duration_per_bike_per_day_min: s.durationPerBikePerDayMin,
});

export const parseRide = (r: Ride): RowOf<typeof tables.rides.columns> => ({
  season_year: r.seasonYear,
  started_zone_id: r.startedZoneId,
  finished_zone_id: r.finishedZoneId,
  started_at: instantMs(r.startedAt),
  finished_at: instantMs(r.finishedAt),
  distance: r.distance,
  average_speed: r.averageSpeed,
  rating: r.rating ?? null,
});

export const parseLiveBike = (b: LiveBike, context: ParseContext): RowOf<typeof tables.live_bikes.columns> => ({
  captured_at: context.fetchedAt,
  number: b.number,
  available: b.available,
  type: b.type,
  lat: b.location.lat,
  lon: b.location.lon,
});

export const parseLiveZone = (z: LiveZone, context: ParseContext): RowOf<typeof tables.live_zones.columns> => ({
  captured_at: context.fetchedAt,
  name: z.name,
  type: z.type,
  lat: z.center.lat,
  lon: z.center.lon,
  area: context.json(z.area),
});
