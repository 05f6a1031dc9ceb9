import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../core/clock.ts';
import { followRegisterDays } from '../../../scripts/sample/register-days.ts';

/** A clock that sleeps by jumping to the time it waits for. */
function jumpingClock(start: string): Clock {
  let now = Date.parse(start);
  return {
    now: () => now,
    speed: 1,
    sleepUntil: async (at) => {
      now = Math.max(now, at);
    },
  };
}

/** The days the registers were grown to, and the clock's time at each, until `days` were added. */
async function follow(clock: Clock, until: string, days: number) {
  const stopped = new AbortController();
  const added: [string, string][] = [];
  await followRegisterDays({
    clock,
    until,
    signal: stopped.signal,
    advance: async (day) => {
      added.push([day, new Date(clock.now()).toISOString()]);
      if (added.length === days) stopped.abort();
    },
  });
  return added;
}

describe('the registers of a sample city whose time moves', () => {
  it("add each day at the midnight that ends it, in the city's time zone, across a change of its offset", async () => {
    expect(await follow(jumpingClock('2025-10-25T10:00:00Z'), '2025-10-24', 3)).toEqual([
      ['2025-10-25', '2025-10-25T22:00:00.000Z'],
      // Summer time ends on the 26th: midnight is at 23:00 UTC from then on.
      ['2025-10-26', '2025-10-26T23:00:00.000Z'],
      ['2025-10-27', '2025-10-27T23:00:00.000Z'],
    ]);
  });

  it('catch up at once with a clock that ran past several midnights', async () => {
    expect(await follow(jumpingClock('2025-10-05T12:00:00Z'), '2025-09-30', 1)).toEqual([['2025-10-04', '2025-10-05T12:00:00.000Z']]);
  });

  it('stop when told, without adding a day', async () => {
    const stopped = new AbortController();
    stopped.abort();
    let added = 0;
    await followRegisterDays({ clock: jumpingClock('2025-10-05T12:00:00Z'), until: '2025-09-30', signal: stopped.signal, advance: async () => void added++ });
    expect(added).toBe(0);
  });
});
