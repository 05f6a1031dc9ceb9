import { describe, expect, it } from 'vitest';
import { datasets } from '../../../datasets/index.ts';
import { createViews } from '../../../core/snapshot/read.ts';
import { tinySnapshot, withDatabase } from '../../fixtures/tiny.ts';

interface Check {
  year: number;
  days: number;
  rides_count: number;
  bikes_count: number;
  zones_count: number;
  total_distance_km: number;
  total_duration_min: number;
  rides_per_day: number;
  rides_per_bike_per_day: number;
  rides_per_station_per_day: number;
  distance_per_bike_per_day_km: number;
  duration_per_bike_per_day_min: number;
  rides: number;
  distance: number;
  minutes: number;
  outside: number;
  span: number;
}

describe('citybike seasons of the sample', () => {
  it('agree with the rides they summarise', async () => {
    const seasons = await withDatabase(async (db) => {
      await createViews(db, await tinySnapshot(), datasets);
      return db.rows<Check>(`
        SELECT s.* EXCLUDE (extra, active_from, active_to),
          CAST(datediff('day', s.active_from, s.active_to) + 1 AS INTEGER) AS span,
          CAST(count(r.started_at) AS INTEGER) AS rides,
          coalesce(sum(r.distance), 0) AS distance,
          coalesce(sum(epoch(r.finished_at - r.started_at)) / 60, 0) AS minutes,
          CAST(count(*) FILTER (WHERE CAST(timezone('Europe/Warsaw', r.started_at) AS DATE) NOT BETWEEN s.active_from AND s.active_to) AS INTEGER) AS outside
        FROM citybike_seasons s LEFT JOIN citybike_rides r ON r.season_year = s.year
        GROUP BY ALL ORDER BY s.year`);
    });
    expect(seasons.length).toBeGreaterThan(1);
    for (const s of seasons) {
      const near = (value: number, expected: number, tolerance: number) =>
        expect(Math.abs(value - expected), `${s.year}: ${value} vs ${expected}`).toBeLessThanOrEqual(tolerance);
      expect(s.days).toBe(s.span);
      expect(s.outside).toBe(0);
      expect(s.rides_count).toBe(s.rides);
      near(s.total_distance_km, s.distance, 0.01);
      near(s.total_duration_min, s.minutes, 0.01);
      near(s.rides_per_day, s.rides_count / s.days, 0.0005);
      near(s.rides_per_bike_per_day, s.rides_count / s.bikes_count / s.days, 0.0005);
      near(s.rides_per_station_per_day, s.rides_count / s.zones_count / s.days, 0.0005);
      near(s.distance_per_bike_per_day_km, s.total_distance_km / s.bikes_count / s.days, 0.0005);
      near(s.duration_per_bike_per_day_min, s.total_duration_min / s.bikes_count / s.days, 0.0005);
    }
  });
});

describe('citybike rides of the sample', () => {
  it('have distance, speed and duration that agree, and ratings from 1 to 5', async () => {
    const [check] = await withDatabase(async (db) => {
      await createViews(db, await tinySnapshot(), datasets);
      return db.rows<{ worst: number; shortest: number; bad_ratings: bigint; rides: bigint }>(`
        SELECT max(abs(average_speed - distance / (epoch(finished_at - started_at) / 3600))) AS worst,
               min(epoch(finished_at - started_at)) AS shortest,
               count(*) FILTER (WHERE rating NOT BETWEEN 1 AND 5) AS bad_ratings,
               count(*) AS rides
        FROM citybike_rides`);
    });
    expect(Number(check!.rides)).toBeGreaterThan(1000);
    expect(check!.worst).toBeLessThanOrEqual(0.005 + 1e-9);
    expect(check!.shortest).toBeGreaterThan(0);
    expect(Number(check!.bad_ratings)).toBe(0);
  });
});
