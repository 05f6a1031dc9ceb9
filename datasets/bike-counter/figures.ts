import type { Chart, MapLayer } from '../core/figure.ts';
import { text } from '../core/text.ts';

export const charts: readonly Chart[] = [
  {
    name: 'weekly-totals',
    title: text('Bicycles counted per week, by counter', 'Rowery zliczone w tygodniu, według licznika'),
    description: text(
      'Sum of hourly readings per ISO week (Monday, UTC), one panel per counter. Gaps are weeks without readings: outages or a counter not yet (or no longer) in service.',
      'Suma odczytów godzinowych w tygodniu ISO (od poniedziałku, UTC), jeden panel na licznik. Przerwy to tygodnie bez odczytów: awarie albo licznik jeszcze (lub już) nieczynny.',
    ),
    sql: `SELECT c.name AS panel, date_trunc('week', r.read_at)::DATE AS x, sum(r.value) AS y
          FROM bike_counter_readings r JOIN bike_counter_counters c ON c.id = r.counter_id
          GROUP BY ALL ORDER BY panel, x`,
    kind: 'line',
    x: { label: text('Week', 'Tydzień'), time: true },
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
