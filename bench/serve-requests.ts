import { Random } from '../datasets/vocabulary/random.ts';

/** How many requests of each kind bench:serve times. */
export const PER_SCENARIO = 200;

export type Rows = Record<string, unknown>[];

/**
 * Records by id among more than the server keeps ready (server/kept-answers.ts), asked for in
 * turn: none is asked for again before it has been let go, so each is read from its record file.
 * It shows what keeping answers ready saves, and has no target of its own.
 */
export const RECORDS_NONE_KEPT = 'transaction by id, among 30,000 (none kept ready)';
const NONE_KEPT_IDS = 30_000;

/** Scenarios of single records: compared with a bare Node server answering the same bodies (target ≥ 0.5× its requests/s). */
export const RECORD_SCENARIOS: ReadonlySet<string> = new Set([
  'transaction by id',
  'property by id, with details',
  'counter by id',
  'station by id',
  'zone by id',
  'bike by number',
  'season by year',
]);
/** Scenarios of filtered pages with exact totals: compared with raw DuckDB at 16 in flight (target ≥ 0.9×) and a peer. */
export const PAGE_SCENARIOS: ReadonlySet<string> = new Set(['transactions, filtered page', 'properties, filtered page']);
/** Scenarios of series and numbered pages over a span of days: compared with raw DuckDB at 16 in flight (target ≥ 0.9×). */
export const SERIES_SCENARIOS: ReadonlySet<string> = new Set(['counter readings, one month', 'rides, one day, a page', 'air history, one week']);

/** Ad-hoc requests per scenario, drawn from the city's own ids, streets and places (found with `sql`). */
export async function scenarios(sql: (text: string) => Promise<Rows>): Promise<Record<string, string[]>> {
  const random = new Random('bench-serve');
  const transactions = (await sql(`SELECT transaction_gml_id AS id FROM rcn_transactions USING SAMPLE 400 ROWS`)).map((r) => r.id as string);
  const manyTransactions = (await sql(`SELECT transaction_gml_id AS id FROM rcn_transactions USING SAMPLE ${NONE_KEPT_IDS} ROWS (reservoir, 7)`)).map(
    (r) => r.id as string,
  );
  const properties = (await sql(
    `SELECT property_gml_id AS id, (min_lon + max_lon) / 2 AS lon, (min_lat + max_lat) / 2 AS lat, address_parts FROM rcn_properties USING SAMPLE 400 ROWS`,
  )) as { id: string; lon: number; lat: number; address_parts: string[] }[];
  const counters = (await sql(`SELECT id FROM bike_counter_counters WHERE active_to IS NULL`)).map((r) => r.id as string);
  const series = (await sql(`SELECT DISTINCT station_id, sensor_code FROM air_quality_live_readings`)) as { station_id: string; sensor_code: string }[];
  const column = async (text: string) => (await sql(text)).map((row) => String(Object.values(row)[0]));
  const stations = await column(`SELECT id FROM air_quality_stations`);
  const zones = await column(`SELECT id FROM citybike_zones USING SAMPLE 400 ROWS`);
  const bikes = await column(`SELECT number FROM citybike_bikes USING SAMPLE 400 ROWS`);
  const seasons = await column(`SELECT year FROM citybike_seasons`);
  const p = '/api/public';
  const day = (from: string, spanDays: number) => {
    const start = Date.parse(`${from}T00:00:00Z`) + random.int(0, spanDays) * 86_400_000;
    return new Date(start).toISOString().slice(0, 10);
  };
  const plus = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
  const many = (make: () => string) => Array.from({ length: PER_SCENARIO }, make);
  return {
    'transactions, filtered page': many(() => {
      const query = new URLSearchParams({ limit: '100', offset: String(100 * random.int(0, 9)) });
      if (random.chance(0.6)) query.set('marketType', String(random.int(1, 2)));
      if (random.chance(0.3)) query.set('transactionType', random.pick(['1', '3']));
      if (random.chance(0.5)) {
        const from = day('2020-01-01', 2000);
        query.set('documentDateFrom', from);
        query.set('documentDateTo', plus(from, random.int(30, 365)));
      }
      if (random.chance(0.4)) query.set('grossPriceFrom', String(random.int(3, 20) * 100_000));
      return `${p}/rcn/transactions?${query}`;
    }),
    'properties, filtered page': many(() => {
      const property = random.pick(properties);
      const query = new URLSearchParams({ limit: '50' });
      const kind = random.int(0, 2);
      if (kind === 0) query.set('address', random.pick(property.address_parts.filter((a) => a.length > 3)).slice(-7));
      if (kind === 1)
        query.set('bbox', [property.lon - 0.006, property.lat - 0.004, property.lon + 0.006, property.lat + 0.004].map((n) => n.toFixed(5)).join(','));
      if (kind === 2) {
        query.set('propertyType', String(random.int(1, 4)));
        query.set('landAreaFrom', String(random.int(1, 20) * 100));
      }
      return `${p}/rcn/properties?${query}`;
    }),
    'transaction by id': many(() => `${p}/rcn/transactions/${encodeURIComponent(random.pick(transactions))}`),
    [RECORDS_NONE_KEPT]: manyTransactions.map((id) => `${p}/rcn/transactions/${encodeURIComponent(id)}`),
    'property by id, with details': many(() => `${p}/rcn/properties/${encodeURIComponent(random.pick(properties).id)}`),
    'counter by id': many(() => `${p}/bike-counter/counters/${encodeURIComponent(random.pick(counters))}`),
    'station by id': many(() => `${p}/air-quality/stations/${encodeURIComponent(random.pick(stations))}`),
    'zone by id': many(() => `${p}/citybike/zones/${encodeURIComponent(random.pick(zones))}`),
    'bike by number': many(() => `${p}/citybike/bikes/${encodeURIComponent(random.pick(bikes))}`),
    'season by year': many(() => `${p}/citybike/seasons/${random.pick(seasons)}`),
    'counter readings, one month': many(() => {
      const from = day('2024-01-01', 600);
      return `${p}/bike-counter/counters/${random.pick(counters)}/readings?from=${from}&to=${plus(from, 29)}&timezone=Europe/Warsaw`;
    }),
    'rides, one day, a page': many(() => {
      const from = day('2025-04-01', 170);
      return `${p}/citybike/rides?from=${from}&to=${from}&pageSize=100&page=${random.int(1, 5)}&timezone=Europe/Warsaw`;
    }),
    'air history, one week': many(() => {
      const s = random.pick(series);
      const from = day('2024-01-01', 600);
      return `${p}/air-quality/history/${s.station_id}/${s.sensor_code}?from=${from}&to=${plus(from, 6)}`;
    }),
  };
}
