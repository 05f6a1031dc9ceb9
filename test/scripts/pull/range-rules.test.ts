import { describe, expect, it } from 'vitest';
import { citybike } from '../../../datasets/citybike/index.ts';
import { bikeCounter } from '../../../datasets/bike-counter/index.ts';
import { RangeRules } from '../../../scripts/pull/range-rules.ts';

/** What a pull learns of a range's rule from the rows its windows return, and the rows two windows both return. */

const rides = citybike.tables.rides!;
const readings = bikeCounter.tables.readings!;
const RIDES = { endpoint: '/api/public/citybike/rides', time: 'started_at', until: 'finished_at' };
const READINGS = { endpoint: '/api/public/bike-counter/counters/{counterId}/readings', time: 'read_at' };
const at = (iso: string) => Date.parse(iso);
const ride = (start: string, end: string) => ({
  started_at: at(start),
  finished_at: at(end),
  started_zone_id: 'z',
  finished_zone_id: 'z',
  distance: 1,
  season_year: 2025,
});
const reading = (iso: string) => ({ counter_id: 'c', read_at: at(iso), value: 1 });

describe('RangeRules', () => {
  it('stores once a ride two windows both return, across their edge, and learns they return rides by overlap', () => {
    const rules = new RangeRules();
    const across = ride('2025-07-07T23:50:00Z', '2025-07-08T00:20:00Z');
    const kept = [
      rules.keep(RIDES, { from: '2025-07-01', to: '2025-07-07' }, rides, { ...across }),
      rules.keep(RIDES, { from: '2025-07-08', to: '2025-07-14' }, rides, { ...across }),
      rules.keep(RIDES, { from: '2025-07-08', to: '2025-07-14' }, rides, ride('2025-07-09T10:00:00Z', '2025-07-09T10:30:00Z')),
    ];
    expect(kept).toEqual([true, false, true]);
    expect(rules.rules().get(RIDES.endpoint)).toMatchObject({ by: 'overlap' });
  });

  it('learns rides by their start, or by their end, from the side of the edge they come on', () => {
    const byStart = new RangeRules();
    byStart.keep(RIDES, { from: '2025-07-01', to: '2025-07-07' }, rides, ride('2025-07-07T23:50:00Z', '2025-07-08T00:20:00Z'));
    expect(byStart.rules().get(RIDES.endpoint)).toMatchObject({ by: 'start' });
    const byEnd = new RangeRules();
    byEnd.keep(RIDES, { from: '2025-07-08', to: '2025-07-14' }, rides, ride('2025-07-07T23:50:00Z', '2025-07-08T00:20:00Z'));
    expect(byEnd.rules().get(RIDES.endpoint)).toMatchObject({ by: 'end' });
  });

  it('learns that a `to` includes the next midnight, and stores that reading once', () => {
    const rules = new RangeRules();
    const midnight = reading('2025-04-01T00:00:00Z');
    expect(rules.keep(READINGS, { counterId: 'c', from: '2025-01-01', to: '2025-03-31' }, readings, { ...midnight })).toBe(true);
    expect(rules.keep(READINGS, { counterId: 'c', from: '2025-04-01', to: '2025-06-30' }, readings, { ...midnight })).toBe(false);
    expect(rules.rules().get(READINGS.endpoint)).toEqual({ toInclusive: true });
  });

  it("learns that it does not, from a window's first reading the window before did not return", () => {
    const rules = new RangeRules();
    rules.keep(READINGS, { counterId: 'c', from: '2025-01-01', to: '2025-03-31' }, readings, reading('2025-03-31T23:00:00Z'));
    rules.keep(READINGS, { counterId: 'c', from: '2025-04-01', to: '2025-06-30' }, readings, reading('2025-04-01T00:00:00Z'));
    expect(rules.rules().get(READINGS.endpoint)).toEqual({ toInclusive: false });
  });

  it('says what the rows did not show, and lets what was asked settle it', () => {
    const rules = new RangeRules();
    rules.keep(RIDES, { from: '2025-07-01', to: '2025-07-07' }, rides, ride('2025-07-03T10:00:00Z', '2025-07-03T10:30:00Z'));
    expect(rules.rules().get(RIDES.endpoint)).toEqual({ unknown: ['toInclusive', 'by'] });
    rules.asked(RIDES.endpoint, { startsBefore: true, endsAfter: false, toInclusive: false });
    expect(rules.rules().get(RIDES.endpoint)).toEqual({ toInclusive: false, by: 'end' });
  });
});
