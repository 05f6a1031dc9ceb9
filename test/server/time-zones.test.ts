import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../core/calendar.ts';
import { zonedDayStart } from '../../core/zoned-time.ts';
import { datasets } from '../../datasets/index.ts';
import { readTable } from '../../core/snapshot/read.ts';
import { startTestServer, type TestServer } from '../fixtures/server.ts';
import { tinySnapshot, withDatabase } from '../fixtures/tiny.ts';

let server: TestServer;
let readings: { counter_id: string; read_at: number; value: number }[];
beforeAll(async () => {
  server = await startTestServer();
  const snapshot = await tinySnapshot();
  readings = (await withDatabase((db) => readTable(db, snapshot, datasets[2]!, 'readings'))) as typeof readings;
});
afterAll(() => server.close());

const hours = (day: string, timeZone: string) => (zonedDayStart(addDays(day, 1), timeZone) - zonedDayStart(day, timeZone)) / 3_600_000;

/** The readings of a counter on a local day, computed from the stored rows. */
const storedOn = (counter: string, day: string, timeZone: string) =>
  readings.filter((r) => r.counter_id === counter && r.read_at >= zonedDayStart(day, timeZone) && r.read_at < zonedDayStart(addDays(day, 1), timeZone));

/** A counter with every hour of the day stored, so the day's length shows in the count of readings. */
const completeCounter = (day: string) => {
  const counter = [...new Set(readings.map((r) => r.counter_id))].find((c) => storedOn(c, day, 'Europe/Warsaw').length === hours(day, 'Europe/Warsaw'));
  if (!counter) throw new Error(`no counter has every hour of ${day}`);
  return counter;
};

const get = (counter: string, day: string, timezone?: string) =>
  server.json(`/api/public/bike-counter/counters/${counter}/readings?from=${day}&to=${day}${timezone ? `&timezone=${timezone}` : ''}`);

describe('timezone on counter readings', () => {
  it('shows Europe/Warsaw readings at +01:00 in winter and +02:00 in summer', async () => {
    for (const [day, offset] of [
      ['2025-01-15', '+01:00'],
      ['2025-07-15', '+02:00'],
    ] as const) {
      const counter = completeCounter(day);
      const { readings: got } = await get(counter, day, 'Europe/Warsaw');
      expect(got).toHaveLength(24);
      expect(got[0].readAt).toBe(`${day}T00:00:00${offset}`);
      expect(got.every((r: { readAt: string }) => r.readAt.endsWith(offset))).toBe(true);
    }
  });

  it('gives the spring DST day 23 hours and the autumn one 25', async () => {
    const spring = await get(completeCounter('2025-03-30'), '2025-03-30', 'Europe/Warsaw');
    expect(spring.readings.map((r: { readAt: string }) => r.readAt.slice(11))).toEqual([
      '00:00:00+01:00',
      '01:00:00+01:00',
      ...Array.from({ length: 21 }, (_, i) => `${String(i + 3).padStart(2, '0')}:00:00+02:00`),
    ]);
    const autumn = await get(completeCounter('2024-10-27'), '2024-10-27', 'Europe/Warsaw');
    const times = autumn.readings.map((r: { readAt: string }) => r.readAt.slice(11));
    expect(times).toHaveLength(25);
    expect(times.slice(0, 4)).toEqual(['00:00:00+02:00', '01:00:00+02:00', '02:00:00+02:00', '02:00:00+01:00']);
  });

  it('reads the range in the requested zone and returns exactly the stored readings of those days', async () => {
    const counter = completeCounter('2025-07-15');
    for (const timezone of ['UTC', 'Europe/Warsaw', 'Asia/Tokyo', 'America/Los_Angeles']) {
      const { readings: got } = await get(counter, '2025-07-15', timezone);
      expect(
        got.map((r: { value: number }) => r.value),
        timezone,
      ).toEqual(storedOn(counter, '2025-07-15', timezone).map((r) => r.value));
    }
  });

  it('uses UTC by default, written +00:00', async () => {
    const counter = completeCounter('2025-07-15');
    const { readings: got } = await get(counter, '2025-07-15');
    expect(got[0].readAt).toBe('2025-07-15T00:00:00+00:00');
  });
});

describe('timezone on air-quality history and rides', () => {
  it('shifts air readings and their offsets with the zone', async () => {
    const [station] = await server.json('/api/public/air-quality/stations');
    const utc = await server.json(`/api/public/air-quality/history/${station.id}/PM10?from=2025-01-15&to=2025-01-15`);
    const warsaw = await server.json(`/api/public/air-quality/history/${station.id}/PM10?from=2025-01-15&to=2025-01-15&timezone=Europe/Warsaw`);
    expect(utc.readings[0].readAt).toBe('2025-01-15T00:00:00+00:00');
    expect(warsaw.readings[0].readAt).toBe('2025-01-15T00:00:00+01:00');
    expect(warsaw.readings[1].value).toBe(utc.readings[0].value);
  });

  it('shows ride times in the requested zone', async () => {
    const { data } = await server.json('/api/public/citybike/rides?from=2025-07-01&to=2025-07-01&timezone=Europe/Warsaw');
    expect(data.length).toBeGreaterThan(0);
    expect(data.every((r: { startedAt: string }) => r.startedAt.startsWith('2025-07-01T') && r.startedAt.endsWith('+02:00'))).toBe(true);
  });
});
