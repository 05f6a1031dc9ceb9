import type { Chart, MapLayer } from '../core/figure.ts';
import { text } from '../core/text.ts';

export const charts: readonly Chart[] = [
  {
    name: 'daily-totals',
    title: text('Bicycles counted per day, by counter', 'Rowery zliczone w ciągu dnia, według licznika'),
    description: text(
      'Sum of hourly readings per UTC day, one panel per counter. Gaps are days without readings: outages, or a counter not yet (or no longer) in service.',
      'Suma odczytów godzinowych w dobie UTC, jeden panel na licznik. Przerwy to dni bez odczytów: awarie albo licznik jeszcze (lub już) nieczynny.',
    ),
    sql: `SELECT c.name AS panel, r.read_at::DATE AS x, sum(r.value) AS y
          FROM bike_counter_readings r JOIN bike_counter_counters c ON c.id = r.counter_id
          GROUP BY ALL ORDER BY panel, x`,
    kind: 'line',
    x: { label: text('Day', 'Dzień'), time: true },
    y: { label: text('Bicycles', 'Rowery') },
  },
];

export const map: readonly MapLayer[] = [
  {
    name: 'counters',
    title: text('Counters', 'Liczniki'),
    sql: 'SELECT id, name, lon, lat FROM bike_counter_counters ORDER BY name',
  },
];
