import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeMirrorStatus } from '../../core/mirror-status.ts';
import { datasets } from '../../datasets/index.ts';
import { createRouter } from '../../datasets/vocabulary/router.ts';
import { parking } from '../fixtures/parking/index.ts';
import { mirrorRecord, NOW, RECORDED_AT, stoppedClock, tinyCopy } from '../fixtures/mirror-status.ts';
import { startTestServer, type TestServer } from '../fixtures/server.ts';

describe('the status resource', () => {
  describe('with no mirror keeping the data directory current', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer({ clock: stoppedClock(NOW) });
    });
    afterAll(() => server?.close());

    it("says so, and tells what the snapshot's manifest knows: when it was made and from what", async () => {
      const response = await server.fetch('/api/public/status');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-store');
      const { manifest } = server.host.current.snapshot;
      expect(await response.json()).toEqual({
        asOf: new Date(NOW).toISOString(),
        snapshot: {
          id: manifest.id,
          createdAt: manifest.createdAt,
          ageSeconds: Math.round((NOW - Date.parse(manifest.createdAt)) / 1000),
          source: manifest.source,
        },
        mirror: null,
      });
      expect(response.headers.get('x-odsnap-snapshot')).toBe(manifest.id);
    });

    it('is linked from the index', async () => {
      expect((await server.json('/api/public')).status).toBe(`${server.url}/api/public/status`);
    });

    it("takes no data set's path, and none of theirs takes it", async () => {
      // Every data set's paths are /api/public/<name>/…: the v1 router has nothing at the status's path.
      expect(createRouter([...datasets, parking])('/api/public/status')).toBeUndefined();
      expect((await server.fetch('/api/public/rcn/transactions?limit=1')).status).toBe(200);
      expect((await server.fetch('/api/public/status/nope')).status).toBe(404);
    });
  });

  describe('with a mirror', () => {
    let dataDir: string;
    let server: TestServer;
    beforeAll(async () => {
      dataDir = await tinyCopy('status-resource');
      await writeMirrorStatus(dataDir, mirrorRecord());
      server = await startTestServer({ dataDir, clock: stoppedClock(NOW) });
    });
    afterAll(() => server?.close());

    it("gives each data set's last pull, its lag, next run and last error, and each live feed's captures and gaps", async () => {
      const { mirror } = await server.json('/api/public/status');
      expect(mirror).toEqual({
        upstream: 'https://upstream.example.org',
        startedAt: '2026-11-01T00:00:00Z',
        updatedAt: '2026-11-02T12:00:00Z',
        pulls: { succeeded: 41, failed: 3 },
        datasets: {
          rcn: {
            lastSuccess: { at: '2026-11-02T06:00:00Z', snapshot: '20261102T060000Z', seconds: 95.5 },
            lagSeconds: 6 * 3600 + 60,
            nextRun: '2026-11-02T18:00:00Z',
            lastError: { at: '2026-11-02T09:00:00Z', error: 'upstream answered 503 for /api/public/rcn/transactions' },
            failing: true,
          },
          citybike: {
            lastSuccess: { at: '2026-11-02T11:00:00Z', snapshot: '20261102T110000Z', seconds: 12 },
            lagSeconds: 3600 + 60,
            nextRun: '2026-11-02T13:00:00Z',
            lastError: null,
            failing: false,
          },
        },
        live: {
          '/api/public/citybike/live': {
            dataset: 'citybike',
            lastCapture: '2026-11-02T12:00:00Z',
            lagSeconds: 60,
            nextCapture: '2026-11-02T12:01:00Z',
            captures: 2150,
            failures: 7,
            lastError: { at: '2026-11-02T10:15:00Z', error: 'upstream answered 429' },
            recentGaps: mirrorRecord().live['/api/public/citybike/live']!.gaps,
          },
        },
      });
    });

    it('reads the record again when the mirror writes a new one', async () => {
      const record = mirrorRecord();
      await writeMirrorStatus(dataDir, { ...record, updatedAt: new Date(RECORDED_AT + 30_000).toISOString(), pulls: { succeeded: 42, failed: 3 } });
      const { mirror } = await server.json('/api/public/status');
      expect(mirror.pulls).toEqual({ succeeded: 42, failed: 3 });
      expect(mirror.updatedAt).toBe('2026-11-02T12:00:30.000Z');
    });
  });
});
