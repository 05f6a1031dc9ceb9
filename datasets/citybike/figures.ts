import type { Chart, MapLayer } from '../vocabulary/figure.ts';
import { text } from '../../core/text.ts';

export const charts: readonly Chart[] = [
  {
    name: 'rides-per-day',
    title: text('Rides per day', 'Przejazdy dziennie'),
    description: text('Rides started each day (UTC), over every season.', 'Przejazdy rozpoczęte każdego dnia (UTC), we wszystkich sezonach.'),
    // Days counted on epoch microseconds (UTC): a cast of a TIMESTAMPTZ to DATE goes through ICU
    // for each of millions of rides, several times the CPU.
    sql: `SELECT DATE '1970-01-01' + CAST(day AS INTEGER) AS x, rides AS y
          FROM (SELECT epoch_us(started_at) // 86400000000 AS day, count(*) AS rides FROM citybike_rides GROUP BY day) ORDER BY x`,
    kind: 'line',
    x: { label: text('Day', 'Dzień'), time: true },
    y: { label: text('Rides per day', 'Przejazdy na dobę') },
  },
  {
    name: 'seasons',
    title: text('Seasons compared', 'Porównanie sezonów'),
    description: text(
      'Season statistics as the service publishes them: rides, distance and rides per bike per day, one panel each.',
      'Statystyki sezonów w postaci publikowanej przez usługę: przejazdy, dystans i przejazdy na rower dziennie, po jednym panelu.',
    ),
    sql: `SELECT panel, CAST(year AS VARCHAR) AS x, y FROM (
            SELECT year, 'rides' AS panel, rides_count::DOUBLE AS y, 1 AS o FROM citybike_seasons
            UNION ALL SELECT year, 'distance', total_distance_km, 2 FROM citybike_seasons
            UNION ALL SELECT year, 'rides-per-bike-per-day', rides_per_bike_per_day, 3 FROM citybike_seasons)
          ORDER BY o, x`,
    kind: 'bar',
    x: { label: text('Season', 'Sezon'), time: false },
    // Rides, kilometres and a ratio: no scale could serve all three, so each panel has its own,
    // its axis titled with the panel's name and unit.
    y: { label: text('Season figure (unit in the panel name)', 'Wartość sezonu (jednostka w nazwie panelu)'), scale: 'own' },
    panels: {
      rides: text('Rides per season', 'Przejazdy w sezonie'),
      distance: text('Total distance, km', 'Łączny dystans, km'),
      'rides-per-bike-per-day': text('Rides per bike per day', 'Przejazdy na rower dziennie'),
    },
  },
];

export const map: readonly MapLayer[] = [
  {
    name: 'zones',
    title: text('Bike share zones', 'Strefy roweru miejskiego'),
    sql: 'SELECT id, name, lon, lat FROM citybike_zones ORDER BY name',
  },
];
