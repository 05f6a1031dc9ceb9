import type { Chart, MapLayer } from '../vocabulary/figure.ts';
import { text } from '../../core/text.ts';

export const charts: readonly Chart[] = [
  {
    name: 'daily-totals',
    title: text('Bicycles counted per day, by counter', 'Rowery zliczone w ciągu dnia, według licznika'),
    description: text(
      'Sum of hourly readings per UTC day, one panel per counter. Gaps are days without readings: outages, or a counter not yet (or no longer) in service.',
      'Suma odczytów godzinowych w dobie UTC, jeden panel na licznik. Przerwy to dni bez odczytów: awarie albo licznik jeszcze (lub już) nieczynny.',
    ),
    // Summed per counter and UTC day on epoch microseconds before the join: a cast of a TIMESTAMPTZ
    // to DATE goes through ICU for each reading.
    sql: `SELECT c.name AS panel, DATE '1970-01-01' + CAST(r.day AS INTEGER) AS x, sum(r.total) AS y
          FROM (SELECT counter_id, epoch_us(read_at) // 86400000000 AS day, sum(value) AS total FROM bike_counter_readings GROUP BY ALL) r
          JOIN bike_counter_counters c ON c.id = r.counter_id
          GROUP BY ALL ORDER BY panel, x`,
    kind: 'line',
    x: { label: text('Day', 'Dzień'), time: true },
    // Counters are compared with each other: one scale, so a quiet counter looks quiet.
    y: { label: text('Bicycles per day', 'Rowery na dobę'), scale: 'shared' },
  },
];

export const map: readonly MapLayer[] = [
  {
    name: 'counters',
    title: text('Counters', 'Liczniki'),
    sql: 'SELECT id, name, lon, lat FROM bike_counter_counters ORDER BY name',
  },
];
