import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distanceKm } from '../../../datasets/vocabulary/sample-city.ts';
import { datasets } from '../../../datasets/index.ts';
import { defaultSeed, defaultUntil, sampleContext } from '../../../datasets/vocabulary/sample.ts';
import { liveAnswersAt, type LiveAnswer } from '../../../scripts/sample/live-answers.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';

const tiny = { scale: 'tiny', seed: defaultSeed } as const;
/** The tiny city's "now": the midnight after its last day, when its snapshot's live tables were captured. */
const now = sampleContext({ ...tiny, until: defaultUntil }).now;
const MINUTE = 60_000;
const base = 'http://localhost:4321';

interface LiveStation {
  readonly stationId: string;
  readonly readings: { readonly readAt: string }[];
}

const bodyOf = (answers: readonly LiveAnswer[], path: string) => JSON.parse(answers.find((a) => a.path === path)!.body);
const bikesAt = async (at: number) =>
  bodyOf(await liveAnswersAt(datasets, tiny, at, base), '/api/public/citybike/live').bikes as {
    number: string;
    available: boolean;
    location: { lat: number; lon: number };
  }[];

describe('the live answers of a sample city whose time moves', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it("are at the sample's own now, byte for byte, what odsnap serve answers from its snapshot", async () => {
    const answers = await liveAnswersAt(datasets, tiny, now, server.url);
    // Every live endpoint, and the device endpoint for each station, the one whose readings fail included.
    expect(answers.map((a) => a.path)).toEqual(expect.arrayContaining(['/api/public/citybike/live', '/api/public/air-quality/live']));
    expect(answers.filter((a) => a.path.startsWith('/api/public/air-quality/live/')).length).toBeGreaterThan(1);
    for (const { path, body } of answers) {
      const served = await server.fetch(path);
      expect({ path, status: served.status, body: await served.text() }).toEqual({ path, status: 200, body });
    }
  });

  it('are the same whenever they are asked for the same minute, anywhere in it', async () => {
    const at = now + 9 * 60 * MINUTE;
    expect(await liveAnswersAt(datasets, tiny, at + 59_999, base)).toEqual(await liveAnswersAt(datasets, tiny, at, base));
  });

  it('change from minute to minute on a morning of the season, the bikes moving a little rather than drawn anew', async () => {
    // 2025-10-01, a Wednesday: 09:00 to 09:10 in Warsaw.
    const morning = now + 9 * 60 * MINUTE;
    let before = await bikesAt(morning);
    for (let minute = 1; minute <= 10; minute++) {
      const after = await bikesAt(morning + minute * MINUTE);
      expect(after.map((b) => b.number)).toEqual(before.map((b) => b.number));
      const changed = after.filter((bike, i) => JSON.stringify(bike) !== JSON.stringify(before[i]));
      expect(changed.length, `minute ${minute}`).toBeGreaterThan(0);
      expect(changed.length, `minute ${minute}`).toBeLessThan(after.length / 4);
      for (const bike of changed) {
        const was = before.find((b) => b.number === bike.number)!;
        expect(distanceKm(was.location, bike.location), bike.number).toBeLessThan(1);
      }
      before = after;
    }
  });

  it('show the air at its own cadence: a reference station the hour just ended, a low-cost sensor every five minutes', async () => {
    const stations = (await server.json('/api/public/air-quality/stations')) as { id: string; provider: string }[];
    const readAt = async (at: number) => {
      const live = bodyOf(await liveAnswersAt(datasets, tiny, at, base), '/api/public/air-quality/live').stations as LiveStation[];
      const firstOf = (provider: string) => live.find((s) => s.readings.length && stations.find((t) => t.id === s.stationId)!.provider === provider)!;
      return [firstOf('GIOŚ').readings[0]!.readAt, firstOf('Airly').readings[0]!.readAt];
    };
    const [reference, lowCost] = [0, 1];
    const at = now + (9 * 60 + 2) * MINUTE;
    const [first, sameFive, nextFive, nextHour] = await Promise.all([at, at + 2 * MINUTE, at + 3 * MINUTE, at + 58 * MINUTE].map(readAt));
    expect(first![reference]).toBe('2025-10-01T06:00:00+00:00');
    expect(first![lowCost]).toBe('2025-10-01T06:00:00+00:00');
    expect(sameFive![lowCost]).toBe(first![lowCost]);
    expect(nextFive![lowCost]).toBe('2025-10-01T06:05:00+00:00');
    expect(nextFive![reference]).toBe(first![reference]);
    expect(nextHour![reference]).toBe('2025-10-01T07:00:00+00:00');
  });
});
