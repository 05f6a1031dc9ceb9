import { describe, expect, it } from 'vitest';
import { acceleratedClock } from '../../../core/clock.ts';
import { keepRunning, parseCadence, type Cadence } from '../../../scripts/mirror/cadence.ts';
import { gapBefore } from '../../../scripts/mirror/live-job.ts';

const at = (iso: string) => Date.parse(iso);
const cadence = (text: string) => parseCadence(text, 'UTC') as Cadence;

describe('a cadence of the mirror', () => {
  it('reads intervals, due at their multiples', () => {
    expect(new Date(cadence('1h').next(at('2026-11-02T08:20:00Z'))).toISOString()).toBe('2026-11-02T09:00:00.000Z');
    expect(new Date(cadence('1h').previous(at('2026-11-02T09:00:00Z'))).toISOString()).toBe('2026-11-02T09:00:00.000Z');
    expect(new Date(cadence('30s').next(at('2026-11-02T08:20:00Z'))).toISOString()).toBe('2026-11-02T08:20:30.000Z');
  });

  it('reads cron expressions, with seconds or without', () => {
    expect(new Date(cadence('15 * * * *').next(at('2026-11-02T08:20:00Z'))).toISOString()).toBe('2026-11-02T09:15:00.000Z');
    expect(new Date(cadence('15 * * * *').previous(at('2026-11-02T09:15:00Z'))).toISOString()).toBe('2026-11-02T09:15:00.000Z');
    expect(new Date(cadence('*/20 * * * * *').next(at('2026-11-02T08:20:05Z'))).toISOString()).toBe('2026-11-02T08:20:20.000Z');
  });

  it('says what is wrong with a cadence it cannot read', () => {
    expect(parseCadence('0m')).toEqual({ problem: 'must be longer than 0' });
    expect(parseCadence('every hour')).toMatchObject({ problem: expect.stringMatching(/^must be an interval \(30s, 5m, 1h, 1d\) or a cron expression/) });
  });

  it('runs a job one run at a time: a slow run delays the next rather than piling runs up', async () => {
    const clock = acceleratedClock(at('2026-11-02T08:00:00Z'), 600);
    const controller = new AbortController();
    const runs: number[] = [];
    let running = 0;
    let overlapped = false;
    await keepRunning({
      clock,
      cadence: cadence('1m'),
      signal: controller.signal,
      job: async (due) => {
        overlapped ||= running > 0;
        running++;
        runs.push(due);
        // Three minutes of the clock: two times are missed, none queued.
        await clock.sleepUntil(clock.now() + 3 * 60_000);
        running--;
        if (runs.length === 3) controller.abort();
        return undefined;
      },
    });
    expect(overlapped).toBe(false);
    expect(runs[1]! - runs[0]!).toBeGreaterThanOrEqual(3 * 60_000);
    expect(runs[2]! - runs[1]!).toBeGreaterThanOrEqual(3 * 60_000);
  });
});

describe('a gap in the live archive', () => {
  const minute = cadence('1m');
  it('is none when each minute has its capture', () => {
    expect(gapBefore(minute, at('2026-11-02T08:21:00.300Z'), at('2026-11-02T08:22:00.200Z'), 'x')).toBeUndefined();
  });

  it('spans the minutes with no capture, from the first after the last capture to the minute this one is in', () => {
    expect(gapBefore(minute, at('2026-11-02T08:21:00.300Z'), at('2026-11-02T08:25:00.200Z'), 'the upstream answered 503')).toEqual({
      from: '2026-11-02T08:22:00.000Z',
      to: '2026-11-02T08:25:00.000Z',
      minutes: 3,
      reason: 'the upstream answered 503',
    });
  });

  it('counts a minute whose capture came late, in the next minute, as missed', () => {
    expect(gapBefore(minute, at('2026-11-02T08:21:00.300Z'), at('2026-11-02T08:23:05.000Z'), 'late')).toMatchObject({
      from: '2026-11-02T08:22:00.000Z',
      to: '2026-11-02T08:23:00.000Z',
      minutes: 1,
    });
  });

  it('is none for the first capture ever', () => {
    expect(gapBefore(minute, undefined, at('2026-11-02T08:23:05.000Z'), 'x')).toBeUndefined();
  });
});
