import type { RowOf } from '../../core/table.ts';
import { apiPrefix } from '../vocabulary/dataset.ts';
import type { RenderContext } from '../vocabulary/render.ts';
import type { Bike, LiveBike, LiveZone, Ride, Season, Zone } from './resources.ts';
import type * as tables from './tables.ts';

export const prefix = apiPrefix('citybike');

const segment = encodeURIComponent;
export const bikePath = (number: string) => `${prefix}/bikes/${segment(number)}`;
export const zonePath = (id: string) => `${prefix}/zones/${segment(id)}`;
export const seasonPath = (year: number) => `${prefix}/seasons/${year}`;

export const renderBike = (row: RowOf<typeof tables.bikes.columns>, context: RenderContext): Bike => ({
  uri: context.link(bikePath(row.number)),
  number: row.number,
  type: row.type,
});

export const renderZone = (row: RowOf<typeof tables.zones.columns>, context: RenderContext): Zone => ({
  uri: context.link(zonePath(row.id)),
  id: row.id,
  name: row.name,
  activeFrom: row.active_from,
  activeTo: row.active_to,
  temporary: row.temporary,
  location: { lat: row.lat, lon: row.lon },
});

export const renderSeason = (row: RowOf<typeof tables.seasons.columns>, context: RenderContext): Season => ({
  uri: context.link(seasonPath(row.year)),
  year: row.year,
  activeFrom: row.active_from,
  activeTo: row.active_to,
  days: row.days,
  ridesCount: row.rides_count,
  bikesCount: row.bikes_count,
  zonesCount: row.zones_count,
  totalDistanceKm: row.total_distance_km,
  totalDurationMin: row.total_duration_min,
  ridesPerDay: row.rides_per_day,
  ridesPerBikePerDay: row.rides_per_bike_per_day,
  ridesPerStationPerDay: row.rides_per_station_per_day,
  distancePerBikePerDayKm: row.distance_per_bike_per_day_km,
  durationPerBikePerDayMin: row.duration_per_bike_per_day_min,
});

export const renderRide = (row: RowOf<typeof tables.rides.columns>, context: RenderContext): Ride => ({
  seasonUri: context.link(seasonPath(row.season_year)),
  seasonYear: row.season_year,
  startedZoneUri: context.link(zonePath(row.started_zone_id)),
  startedZoneId: row.started_zone_id,
  finishedZoneUri: row.finished_zone_id === null ? null : context.link(zonePath(row.finished_zone_id)),
  finishedZoneId: row.finished_zone_id,
  startedAt: context.time(row.started_at),
  finishedAt: context.time(row.finished_at),
  distance: row.distance,
  averageSpeed: row.average_speed,
  ...(row.rating === null ? {} : { rating: row.rating }),
});

export const renderLiveBike = (row: RowOf<typeof tables.live_bikes.columns>, context: RenderContext): LiveBike => ({
  uri: context.link(bikePath(row.number)),
  number: row.number,
  available: row.available,
  type: row.type,
  location: { lat: row.lat, lon: row.lon },
});

export const renderLiveZone = (row: RowOf<typeof tables.live_zones.columns>): LiveZone => ({
  name: row.name,
  type: row.type,
  center: { lat: row.lat, lon: row.lon },
  area: row.area as unknown[],
});
