import { describe, expect, it } from 'vitest';
import { canonicalTimeZone, formatInstant, offsetFormOf, offsetIn, offsetMinutes, zonedDayOf, zonedDayStart, type OffsetForm } from '../../core/zoned-time.ts';

const at = (iso: string) => Date.parse(iso);

describe('formatInstant', () => {
  it('shows Warsaw winter time as +01:00 and summer time as +02:00', () => {
    expect(formatInstant(at('2025-01-15T12:00:00Z'), 'Europe/Warsaw')).toBe('2025-01-15T13:00:00+01:00');
    expect(formatInstant(at('2025-07-15T12:00:00Z'), 'Europe/Warsaw')).toBe('2025-07-15T14:00:00+02:00');
  });

  it('writes UTC with an explicit +00:00 offset and keeps milliseconds only when there are some', () => {
    expect(formatInstant(at('2025-07-15T12:00:00Z'), 'UTC')).toBe('2025-07-15T12:00:00+00:00');
    expect(formatInstant(at('2025-07-15T12:00:00.250Z'), 'UTC')).toBe('2025-07-15T12:00:00.250+00:00');
  });

  it('switches offset at the hour of the DST change, not at midnight', () => {
    expect(formatInstant(at('2025-03-30T00:59:59Z'), 'Europe/Warsaw')).toBe('2025-03-30T01:59:59+01:00');
    expect(formatInstant(at('2025-03-30T01:00:00Z'), 'Europe/Warsaw')).toBe('2025-03-30T03:00:00+02:00');
    expect(formatInstant(at('2025-10-26T00:30:00Z'), 'Europe/Warsaw')).toBe('2025-10-26T02:30:00+02:00');
    expect(formatInstant(at('2025-10-26T01:30:00Z'), 'Europe/Warsaw')).toBe('2025-10-26T02:30:00+01:00');
  });

  it('handles zones with half-hour and negative offsets', () => {
    expect(formatInstant(at('2025-01-15T12:00:00Z'), 'Asia/Kolkata')).toBe('2025-01-15T17:30:00+05:30');
    expect(formatInstant(at('2025-01-15T12:00:00Z'), 'America/New_York')).toBe('2025-01-15T07:00:00-05:00');
  });
});

describe('offsets in the forms ISO 8601 allows', () => {
  it('writes each form, keeping the minutes ±hh cannot hold', () => {
    expect([0, 120, -330].map((m) => ['Z', '+hh:mm', '+hhmm', '+hh'].map((form) => offsetIn(m, form as OffsetForm)))).toEqual([
      ['Z', '+00:00', '+0000', '+00'],
      ['+02:00', '+02:00', '+0200', '+02'],
      ['-05:30', '-05:30', '-0530', '-05:30'],
    ]);
  });

  it('reads the form of an offset as written, and nothing else', () => {
    expect(['Z', '+02:00', '-0530', '+02', '+2', 'UTC'].map(offsetFormOf)).toEqual(['Z', '+hh:mm', '+hhmm', '+hh', undefined, undefined]);
  });
});

describe('zonedDayStart', () => {
  it('gives Warsaw days of 23 hours in March and 25 hours in October', () => {
    const hours = (from: string, to: string) => (zonedDayStart(to, 'Europe/Warsaw') - zonedDayStart(from, 'Europe/Warsaw')) / 3_600_000;
    expect(hours('2025-03-30', '2025-03-31')).toBe(23);
    expect(hours('2025-10-26', '2025-10-27')).toBe(25);
    expect(hours('2025-06-01', '2025-06-02')).toBe(24);
  });

  it('is local midnight', () => {
    expect(new Date(zonedDayStart('2025-07-01', 'Europe/Warsaw')).toISOString()).toBe('2025-06-30T22:00:00.000Z');
    expect(new Date(zonedDayStart('2025-01-01', 'UTC')).toISOString()).toBe('2025-01-01T00:00:00.000Z');
  });

  it('is the inverse of zonedDayOf', () => {
    for (const day of ['2024-02-29', '2025-03-30', '2025-10-26', '2025-12-31']) {
      const start = zonedDayStart(day, 'Europe/Warsaw');
      expect(zonedDayOf(start, 'Europe/Warsaw')).toBe(day);
      expect(zonedDayOf(start - 1, 'Europe/Warsaw')).not.toBe(day);
    }
  });
});

describe('canonicalTimeZone', () => {
  it('accepts IANA names in any case and returns their canonical spelling', () => {
    expect(canonicalTimeZone('Europe/Warsaw')).toBe('Europe/Warsaw');
    expect(canonicalTimeZone('europe/warsaw')).toBe('Europe/Warsaw');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
  });

  it('rejects names that are not zones', () => {
    for (const name of ['Mars/Olympus', 'Europe/Warsaw/x', '', '../etc/passwd', 'Europe Warsaw']) {
      expect(canonicalTimeZone(name)).toBeUndefined();
    }
  });
});

describe('offsetMinutes', () => {
  it('agrees with Intl at every hour of a year, including both DST changes', () => {
    const formatter = new Intl.DateTimeFormat('en-US', { timeZone: 'Europe/Warsaw', timeZoneName: 'longOffset' });
    for (let ms = at('2025-01-01T00:00:00Z'); ms < at('2026-01-01T00:00:00Z'); ms += 3_600_000) {
      const name = formatter.formatToParts(ms).find((p) => p.type === 'timeZoneName')!.value; // GMT+01:00
      expect(offsetMinutes(ms, 'Europe/Warsaw')).toBe(Number(name.slice(4, 6)) * 60);
    }
  });
});
