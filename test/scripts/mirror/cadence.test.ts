import { describe, expect, it } from 'vitest';
import { acceleratedClock } from '../../../core/clock.ts';
import { keepRunning, parseCadence, type Cadence } from '../../../scripts/mirror/cadence.ts';
import { FeedAccount } from '../../../scripts/mirror/live-job.ts';

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
  /** A feed whose last capture came at `last`. */
  const capturedLastAt = (last: string) => {
    const account = new FeedAccount(minute, undefined, 'the mirror was not running');
    account.captured(at(last));
    return account;
  };

  it('is none when each minute has its capture', () => {
    expect(capturedLastAt('2026-11-02T08:21:00.300Z').captured(at('2026-11-02T08:22:00.200Z'))).toBeUndefined();
  });

  it('spans the minutes with no capture, from the first after the last capture to the minute this one is in', () => {
    const account = capturedLastAt('2026-11-02T08:21:00.300Z');
    expect(account.failed(at('2026-11-02T08:22:00.500Z'), 'the upstream answered 503')).toBeUndefined();
    expect(account.captured(at('2026-11-02T08:25:00.200Z'))).toEqual({
      from: '2026-11-02T08:22:00.000Z',
      to: '2026-11-02T08:25:00.000Z',
      minutes: 3,
      reason: 'the upstream answered 503',
    });
  });

  it('counts a minute whose capture came late, in the next minute, as missed', () => {
    expect(capturedLastAt('2026-11-02T08:21:00.300Z').captured(at('2026-11-02T08:23:05.000Z'))).toEqual({
      from: '2026-11-02T08:22:00.000Z',
      to: '2026-11-02T08:23:00.000Z',
      minutes: 1,
      reason: expect.stringMatching(/came late/),
    });
  });

  it('is none for the first capture ever', () => {
    expect(new FeedAccount(minute, undefined, 'x').captured(at('2026-11-02T08:23:05.000Z'))).toBeUndefined();
  });

  it('is cut where its cause changed, each part recorded as soon as it ends: an outage, then 429s', () => {
    const account = capturedLastAt('2026-11-02T09:59:00.300Z');
    expect(account.failed(at('2026-11-02T10:00:00.400Z'), 'the upstream answered 503')).toBeUndefined();
    expect(account.failed(at('2026-11-02T10:30:00.400Z'), 'the upstream answered 503')).toBeUndefined();
    expect(account.failed(at('2026-11-02T11:00:01.000Z'), 'the upstream answered 429')).toEqual({
      from: '2026-11-02T10:00:00.000Z',
      to: '2026-11-02T11:00:00.000Z',
      minutes: 60,
      reason: 'the upstream answered 503',
    });
    expect(account.captured(at('2026-11-02T11:15:00.200Z'))).toEqual({
      from: '2026-11-02T11:00:00.000Z',
      to: '2026-11-02T11:15:00.000Z',
      minutes: 15,
      reason: 'the upstream answered 429',
    });
  });

  it('keeps the minutes before the first failure under the reason that held then', () => {
    const account = capturedLastAt('2026-11-02T09:59:00.300Z');
    expect(account.failed(at('2026-11-02T10:05:00.100Z'), 'the upstream answered 503')).toEqual({
      from: '2026-11-02T10:00:00.000Z',
      to: '2026-11-02T10:05:00.000Z',
      minutes: 5,
      reason: expect.stringMatching(/came late/),
    });
  });

  it('starts again where the last recorded gap ended, after a restart', () => {
    // Restarted with the outage's first part recorded: the rest is the reason it stopped with.
    const account = new FeedAccount(minute, at('2026-11-02T11:00:00.000Z'), 'the upstream answered 429; then the mirror stopped');
    expect(account.captured(at('2026-11-02T11:20:00.200Z'))).toEqual({
      from: '2026-11-02T11:00:00.000Z',
      to: '2026-11-02T11:20:00.000Z',
      minutes: 20,
      reason: 'the upstream answered 429; then the mirror stopped',
    });
  });
});
