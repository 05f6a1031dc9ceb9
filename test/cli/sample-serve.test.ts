import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockFromEnvironment } from '../../core/clock.ts';
import { datasets } from '../../datasets/index.ts';
import { liveAnswersAt } from '../../scripts/sample/live-answers.ts';
import { runOdsnap } from '../fixtures/command.ts';
import { startMovingCity, type MovingCity } from '../fixtures/moving-city.ts';
import { tempDir } from '../fixtures/tiny.ts';

/** Midnight in Warsaw ending 2025-10-01, the day after the tiny city's last. */
const MIDNIGHT = Date.parse('2025-10-01T22:00:00Z');
const tiny = { scale: 'tiny', seed: 1 } as const;

const ridesOn = async (city: MovingCity, day: string) =>
  ((await (await fetch(`${city.url}/api/public/citybike/rides?from=${day}&to=${day}`)).json()) as { data: unknown[] }).data.length;

describe('odsnap sample --serve', () => {
  let dir: string;
  let city: MovingCity;
  beforeAll(async () => {
    dir = await tempDir('moving-city');
    // Generated first, so the city starts at once (it reuses a city of its settings): its clock
    // then reaches midnight 40 s after it starts, with the first day's registers in place.
    expect((await runOdsnap('sample', '--scale', 'tiny', '--out', dir)).code).toBe(0);
    city = await startMovingCity(['--scale', 'tiny', '--out', dir], `start=${new Date(MIDNIGHT - 40 * 60_000).toISOString()} speed=60`);
  });
  afterAll(async () => {
    expect(await city?.stop()).toBe(0);
    await rm(dir, { recursive: true, force: true });
  });

  it('prints the clock a mirror is given to share its time, anchored, and the address it serves', () => {
    expect(city.clock).toMatch(/^start=2025-10-01T21:20:00.000Z speed=60 anchor=\d+$/);
    const mirror = clockFromEnvironment({ ODSNAP_CLOCK: city.clock });
    expect(mirror.now()).toBeGreaterThan(MIDNIGHT - 40 * 60_000);
    expect(mirror.now()).toBeLessThan(MIDNIGHT);
    expect(city.output().err).toContain('using the tiny sample city until 2025-09-30');
  });

  it("answers the live endpoints as of its clock's minute, exactly as liveAnswersAt says", async () => {
    const mirror = clockFromEnvironment({ ODSNAP_CLOCK: city.clock });
    const minutes = new Set<string>();
    for (let asked = 0; asked < 2; asked++) {
      const before = mirror.now();
      const answered = await fetch(`${city.url}/api/public/citybike/live`);
      const minute = answered.headers.get('x-odsnap-minute')!;
      minutes.add(minute);
      expect(Date.parse(minute)).toBeGreaterThan(before - 60_000);
      expect(Date.parse(minute)).toBeLessThanOrEqual(mirror.now());
      const expected = await liveAnswersAt(datasets, tiny, Date.parse(minute), city.url);
      expect(await answered.text()).toBe(expected.find((a) => a.path === '/api/public/citybike/live')!.body);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
    }
    expect(minutes.size).toBe(2);
  });

  it('answers everything else through odsnap serve, links and problems included', async () => {
    const transactions = await fetch(`${city.url}/api/public/rcn/transactions?limit=1`);
    expect(transactions.status).toBe(200);
    expect(await transactions.text()).toContain(`"uri":"${city.url}/api/public/rcn/transactions/`);
    const unknownDevice = await fetch(`${city.url}/api/public/air-quality/live/no-such-device`);
    expect(unknownDevice.status).toBe(404);
    expect(unknownDevice.headers.get('content-type')).toBe('application/problem+json');
  });

  it("adds the day just ended at the clock's midnight: its rides and counts appear, within two minutes", async () => {
    const mirror = clockFromEnvironment({ ODSNAP_CLOCK: city.clock });
    expect(mirror.now()).toBeLessThan(MIDNIGHT);
    expect(await ridesOn(city, '2025-10-01')).toBe(0);
    const counters = (await (await fetch(`${city.url}/api/public/bike-counter/counters`)).json()) as { id: string; activeTo: string | null }[];
    const counted = async () =>
      (
        (await (
          await fetch(`${city.url}/api/public/bike-counter/counters/${counters.find((c) => !c.activeTo)!.id}/readings?from=2025-10-01&to=2025-10-01`)
        ).json()) as { readings: unknown[] }
      ).readings.length;
    expect(await counted()).toBe(0);
    const started = Date.now();
    while ((await ridesOn(city, '2025-10-01')) === 0) {
      expect(Date.now() - started, city.output().err).toBeLessThan(110_000);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    expect(mirror.now()).toBeGreaterThanOrEqual(MIDNIGHT);
    expect(await counted()).toBeGreaterThan(0);
    expect(city.output().err).toContain('registers until 2025-10-01');
  }, 120_000);
});

describe('odsnap sample --serve, asked wrongly', () => {
  it('says in --help how the city moves and how a mirror shares its clock', async () => {
    const { code, out } = await runOdsnap('sample', '--help');
    expect(code).toBe(0);
    for (const text of ['--serve', '--port PORT', '--speed N', 'ODSNAP_CLOCK', 'midnights']) expect(out).toContain(text);
  });

  it.each([
    [['--serve', '--speed', '0'], '--speed must be a number above 0'],
    [['--serve', '--speed', 'fast'], '--speed must be a number above 0'],
    [['--speed', '60'], '--speed is for --serve'],
    [['--serve', '--port', 'x'], '--port must be a port number'],
  ])('refuses %j with exit 2 and says why', async (args, message) => {
    const { code, err } = await runOdsnap('sample', ...args);
    expect(code).toBe(2);
    expect(err).toContain(message);
  });

  it('refuses --speed beside ODSNAP_CLOCK, which sets the speed itself', async () => {
    process.env.ODSNAP_CLOCK = 'start=2025-10-01T00:00:00Z speed=60';
    try {
      const { code, err } = await runOdsnap('sample', '--serve', '--speed', '10', '--scale', 'tiny', '--out', await tempDir('moving-refused'));
      expect(code).toBe(2);
      expect(err).toContain('give --speed or ODSNAP_CLOCK, not both');
    } finally {
      delete process.env.ODSNAP_CLOCK;
    }
  });
});
