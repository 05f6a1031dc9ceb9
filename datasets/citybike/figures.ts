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
    // named with its unit (the panel's title, which the axis need not repeat).
    y: { label: text('Season figure', 'Wartość sezonu'), scale: 'own' },
    panels: {
      rides: text('Rides per season', 'Przejazdy w sezonie'),
      distance: text('Total distance, km', 'Łączny dystans, km'),
      'rides-per-bike-per-day': text('Rides per bike per day', 'Przejazdy na rower dziennie'),
    },
  },
  {
    name: 'availability-by-zone',
    title: text('Available bicycles by zone', 'Dostępne rowery według strefy'),
    description: text(
      'From the live archive: available bicycles per zone, the mean of the captures in each hour (UTC), over the last 7 days captured. A bicycle counts in the zone whose centre is nearest, since the spec does not show the shape of a zone’s area. A line breaks where the archive has no capture.',
      'Z archiwum na żywo: dostępne rowery w każdej strefie, średnia zapisów w każdej godzinie (UTC), z ostatnich 7 dni zapisów. Rower liczy się do strefy o najbliższym środku, bo specyfikacja nie pokazuje kształtu obszaru strefy. Linia urywa się tam, gdzie archiwum nie ma zapisu.',
    ),
    // A zone with no available bicycle in a capture counts 0 there: each hour's mean divides by
    // every capture of the hour. Nearest zones are found once per place a bicycle stood in an hour
    // (a parked bicycle stands in one for many captures), against the zones of that hour: pairing
    // every bicycle of every capture with every zone is billions of pairs in a week of a city.
    sql: `WITH since AS (SELECT max(captured_at) - INTERVAL 7 DAY AS t FROM citybike_live_zones),
          zones AS (SELECT captured_at, epoch_us(captured_at) // 3600000000 AS hour, name, lat, lon FROM citybike_live_zones, since WHERE captured_at > since.t),
          places AS (SELECT epoch_us(captured_at) // 3600000000 AS hour, lat, lon, count(*) AS seen
                     FROM citybike_live_bikes, since WHERE captured_at > since.t AND available GROUP BY ALL),
          hour_zones AS (SELECT DISTINCT hour, name, lat, lon FROM zones),
          nearest AS (SELECT p.hour, any_value(p.seen) AS seen, arg_min(z.name, (p.lat - z.lat) ** 2 + ((p.lon - z.lon) * cos(radians(p.lat))) ** 2) AS zone
                      FROM places p JOIN hour_zones z USING (hour) GROUP BY p.hour, p.lat, p.lon),
          counted AS (SELECT hour, zone, sum(seen) AS bikes FROM nearest GROUP BY ALL),
          captures AS (SELECT hour, count(DISTINCT captured_at) AS n FROM zones GROUP BY hour),
          zone_hours AS (SELECT DISTINCT hour, name AS zone FROM zones)
          SELECT zone AS series, strftime(make_timestamp(hour * 3600000000), '%Y-%m-%dT%H:%M:%SZ') AS x, round(coalesce(bikes, 0) / n, 1) AS y
          FROM zone_hours JOIN captures USING (hour) LEFT JOIN counted USING (hour, zone) ORDER BY series, x`,
    kind: 'line',
    x: { label: text('Hour (UTC)', 'Godzina (UTC)'), time: true },
    y: { label: text('Available bicycles', 'Dostępne rowery') },
  },
];

export const map: readonly MapLayer[] = [
  {
    name: 'zones',
    title: text('Bike share zones', 'Strefy roweru miejskiego'),
    sql: 'SELECT id, name, lon, lat FROM citybike_zones ORDER BY name',
  },
];
