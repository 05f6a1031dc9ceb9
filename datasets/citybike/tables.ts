import { column, nullable } from '../vocabulary/column.ts';
import { defineTable, listPosition } from '../vocabulary/table.ts';
import { text } from '../../core/text.ts';
import { bike, liveBike, liveZone, ride, season, zone } from './resources.ts';

const b = bike.shape,
  z = zone.shape,
  s = season.shape,
  r = ride.shape,
  lb = liveBike.shape,
  lz = liveZone.shape;
const lat = column.double(text('Latitude, WGS 84.', 'Szerokość geograficzna, WGS 84.'));
const lon = column.double(text('Longitude, WGS 84.', 'Długość geograficzna, WGS 84.'));
const capturedAt = column.instant(text('When odsnap captured the live map.', 'Kiedy odsnap zapisał mapę na żywo.'));

export const bikes = defineTable({
  doc: text('The stored bicycle inventory.', 'Przechowywany spis rowerów.'),
  columns: { number: column.varchar(b.number), type: column.varchar(b.type), list_position: listPosition },
  key: ['number'],
  sortBy: ['list_position', 'number'],
});

export const zones = defineTable({
  doc: text('Stored zones, current and retired.', 'Przechowywane strefy, obecne i wycofane.'),
  columns: {
    id: column.varchar(z.id),
    name: column.varchar(z.name),
    active_from: column.day(z.activeFrom),
    active_to: nullable(column.day(z.activeTo)),
    temporary: column.boolean(z.temporary),
    lat,
    lon,
    list_position: listPosition,
  },
  key: ['id'],
  sortBy: ['list_position', 'id'],
});

export const seasons = defineTable({
  doc: text('Yearly season statistics.', 'Roczne statystyki sezonów.'),
  columns: {
    year: column.integer(s.year),
    active_from: column.day(s.activeFrom),
    active_to: column.day(s.activeTo),
    days: column.integer(s.days),
    rides_count: column.integer(s.ridesCount),
    bikes_count: column.integer(s.bikesCount),
    zones_count: column.integer(s.zonesCount),
    total_distance_km: column.double(s.totalDistanceKm),
    total_duration_min: column.double(s.totalDurationMin),
    rides_per_day: column.double(s.ridesPerDay),
    rides_per_bike_per_day: column.double(s.ridesPerBikePerDay),
    rides_per_station_per_day: column.double(s.ridesPerStationPerDay),
    distance_per_bike_per_day_km: column.double(s.distancePerBikePerDayKm),
    duration_per_bike_per_day_min: column.double(s.durationPerBikePerDayMin),
    list_position: listPosition,
  },
  key: ['year'],
  sortBy: ['list_position', 'year'],
  timeColumn: 'active_from',
  // A few yearly records: each pull's changes are listed, not counted by day.
  changes: 'records',
});

export const rides = defineTable({
  doc: text(
    'Anonymised completed rides, partitioned by the UTC year and month of their start.',
    'Zanonimizowane zakończone przejazdy, podzielone według roku i miesiąca (UTC) rozpoczęcia.',
  ),
  columns: {
    season_year: column.integer(r.seasonYear),
    started_zone_id: column.varchar(r.startedZoneId),
    finished_zone_id: nullable(column.varchar(r.finishedZoneId)),
    started_at: column.instant(r.startedAt),
    finished_at: column.instant(r.finishedAt),
    distance: column.double(r.distance),
    average_speed: column.double(r.averageSpeed),
    rating: nullable(column.integer(r.rating)),
  },
  partitionBy: [
    { name: 'year', column: 'started_at', part: 'year' },
    { name: 'month', column: 'started_at', part: 'month' },
  ],
  sortBy: ['started_at', 'finished_at', 'started_zone_id'],
  timeColumn: 'started_at',
});

export const live_bikes = defineTable({
  doc: text(
    'Captures of the live bicycle map; the upstream only shows the present, odsnap keeps the history.',
    'Zapisy mapy rowerów na żywo; źródło pokazuje tylko teraźniejszość, odsnap przechowuje historię.',
  ),
  columns: {
    captured_at: capturedAt,
    number: column.varchar(lb.number),
    available: column.boolean(lb.available),
    type: column.varchar(lb.type),
    lat,
    lon,
    list_position: listPosition,
  },
  key: ['captured_at', 'number'],
  partitionBy: [
    { name: 'year', column: 'captured_at', part: 'year' },
    { name: 'month', column: 'captured_at', part: 'month' },
    { name: 'day', column: 'captured_at', part: 'day' },
  ],
  sortBy: ['captured_at', 'list_position', 'number'],
  timeColumn: 'captured_at',
  liveCaptures: true,
});

export const live_zones = defineTable({
  doc: text('Captures of the live zone map.', 'Zapisy mapy stref na żywo.'),
  columns: {
    captured_at: capturedAt,
    name: column.varchar(lz.name),
    type: column.varchar(lz.type),
    lat,
    lon,
    area: column.json(lz.area),
    list_position: listPosition,
  },
  partitionBy: [
    { name: 'year', column: 'captured_at', part: 'year' },
    { name: 'month', column: 'captured_at', part: 'month' },
    { name: 'day', column: 'captured_at', part: 'day' },
  ],
  sortBy: ['captured_at', 'list_position', 'name'],
  timeColumn: 'captured_at',
  liveCaptures: true,
});
