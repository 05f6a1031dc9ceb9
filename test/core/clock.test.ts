import { describe, expect, it } from 'vitest';
import { acceleratedClock, clockFromEnvironment, clockSettingOf, wallClock } from '../../core/clock.ts';

describe('a clock for a mirror that lives days in minutes', () => {
  it('reads its start at its anchor and runs speed times the wall', () => {
    const anchor = Date.now() - 2_000;
    const clock = acceleratedClock(Date.parse('2026-11-01T00:00:00Z'), 60, anchor);
    const read = clock.now() - Date.parse('2026-11-01T00:00:00Z');
    // Two wall seconds are two minutes on it (and a little more, the test's own time).
    expect(read).toBeGreaterThanOrEqual(120_000);
    expect(read).toBeLessThan(120_000 + 60 * 1_000);
  });

  it('sleeps until a time on itself in the wall time that takes', async () => {
    const clock = acceleratedClock(0, 600);
    const started = Date.now();
    await clock.sleepUntil(clock.now() + 60_000);
    const slept = Date.now() - started;
    expect(slept).toBeGreaterThanOrEqual(95);
    expect(slept).toBeLessThan(2_000);
    expect(clock.now()).toBeGreaterThanOrEqual(60_000);
  });

  it('wakes at once for a time past, and when its signal aborts', async () => {
    await wallClock.sleepUntil(0);
    const controller = new AbortController();
    const sleeping = wallClock.sleepUntil(Date.now() + 60_000, controller.signal);
    controller.abort();
    await sleeping;
  });

  it('is set by ODSNAP_CLOCK, the same in every process given the same text', () => {
    const text = clockSettingOf(Date.parse('2026-11-01T00:00:00Z'), 60, Date.now() - 1_000);
    const one = clockFromEnvironment({ ODSNAP_CLOCK: text });
    const other = clockFromEnvironment({ ODSNAP_CLOCK: text });
    expect(Math.abs(one.now() - other.now())).toBeLessThan(60 * 50);
    expect(one.speed).toBe(60);
    expect(clockFromEnvironment({})).toBe(wallClock);
  });

  it('refuses a setting it cannot read, saying how one is written', () => {
    expect(() => clockFromEnvironment({ ODSNAP_CLOCK: 'speed=fast' })).toThrow(/start=<ISO instant> speed=<number>/);
    expect(() => clockFromEnvironment({ ODSNAP_CLOCK: 'start=2026-11-01T00:00:00Z speed=60 tick=1' })).toThrow(/ODSNAP_CLOCK/);
  });
});
