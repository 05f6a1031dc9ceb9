import type { Chart, MapLayer } from '../vocabulary/figure.ts';
import { text } from '../../core/text.ts';
import { sensorWords } from './words.ts';

/** Each sensor's legend bands with their colours, behind its panel. */
const legendBands = `SELECT label || ' (' || unit || ')' AS panel, band."from" AS "from", band."to" AS "to", band.color AS color, band.label AS label
            FROM (SELECT label, unit, sort_order, unnest(legend) AS band FROM air_quality_sensors)
            ORDER BY sort_order, "from"`;

export const charts: readonly Chart[] = [
  {
    name: 'weekly-means',
    title: text('Weekly means by sensor and station', 'Średnie tygodniowe według czujnika i stacji'),
    description: text(
      "Mean of the readings per ISO week (UTC), one panel per sensor, one line per station; behind each panel, the sensor's legend bands with their colours.",
      'Średnia odczytów w tygodniu ISO (UTC), jeden panel na czujnik, jedna linia na stację; w tle panelu przedziały legendy czujnika w jej kolorach.',
    ),
    // Weeks counted on epoch seconds from Monday 1970-01-05 (epoch_us, an integer: epoch() gives a
    // double to cast), summed per station before the joins: date_trunc on a TIMESTAMPTZ goes
    // through ICU for each of millions of readings, several times slower.
    // Summed as decimals: a parallel sum of doubles depends on the order threads add them in, and
    // a mean that moved in its last digit rewrote the figures file of an unchanged snapshot.
    sql: `WITH weekly AS (
            SELECT sensor_code, station_id, (epoch_us(read_at) // 1000000 - 345600) // 604800 AS week, sum(value::DECIMAL(18, 6)) AS total, count(value) AS n
            FROM air_quality_readings GROUP BY ALL)
          SELECT s.label || ' (' || s.unit || ')' AS panel, st.name AS series, CAST(to_timestamp(w.week * 604800 + 345600) AS DATE) AS x, round(sum(w.total) / sum(w.n), 2) AS y
          FROM weekly w
          JOIN air_quality_sensors s ON s.code = w.sensor_code
          JOIN air_quality_stations st ON st.id = w.station_id
          GROUP BY s.sort_order, s.label, s.unit, st.name, x ORDER BY s.sort_order, series, x`,
    bands: legendBands,
    kind: 'line',
    y: { label: text('Weekly mean, {unit}', 'Średnia tygodniowa, {unit}'), scale: 'own' },
    x: { label: text('Week', 'Tydzień'), time: true, period: 'week', through: 'SELECT max(read_at) AS through FROM air_quality_readings' },
    labels: sensorWords,
    valuesLanguage: 'pl',
  },
  {
    name: 'live-readings',
    title: text('Latest readings by station', 'Najnowsze odczyty według stacji'),
    description: text(
      'From the live archive: every reading the live feed showed over the last 7 days captured, at the time it was read, one panel per sensor, one line per station. A reading shown by many captures is drawn once, with the value the latest capture gave.',
      'Z archiwum na żywo: każdy odczyt pokazany przez źródło na żywo w ostatnich 7 dniach zapisów, w chwili odczytu, jeden panel na czujnik, jedna linia na stację. Odczyt pokazany w wielu zapisach rysowany jest raz, z wartością z najpóźniejszego zapisu.',
    ),
    // The live feed repeats a station's latest reading until the next: one point per reading.
    // Instants written on epoch microseconds (UTC), as in the weekly means, not through ICU.
    sql: `WITH since AS (SELECT max(captured_at) - INTERVAL 7 DAY AS t FROM air_quality_live_readings),
          readings AS (SELECT station_id, sensor_code, read_at, arg_max(value, captured_at) AS value
                       FROM air_quality_live_readings, since WHERE captured_at > since.t GROUP BY ALL)
          SELECT coalesce(s.label || ' (' || s.unit || ')', r.sensor_code) AS panel, coalesce(st.name, r.station_id) AS series,
                 strftime(make_timestamp(epoch_us(r.read_at)), '%Y-%m-%dT%H:%M:%SZ') AS x, r.value AS y
          FROM readings r
          LEFT JOIN air_quality_sensors s ON s.code = r.sensor_code
          LEFT JOIN air_quality_stations st ON st.id = r.station_id
          WHERE r.value IS NOT NULL
          ORDER BY s.sort_order NULLS LAST, panel, series, x`,
    bands: legendBands,
    kind: 'line',
    y: { label: text('Reading, {unit}', 'Odczyt, {unit}'), scale: 'own' },
    x: { label: text('Time read (UTC)', 'Czas odczytu (UTC)'), time: true },
    labels: sensorWords,
    valuesLanguage: 'pl',
  },
];

export const map: readonly MapLayer[] = [
  {
    name: 'stations',
    title: text('Air quality stations', 'Stacje pomiaru jakości powietrza'),
    sql: 'SELECT id, name, lon, lat FROM air_quality_stations ORDER BY name',
  },
];
