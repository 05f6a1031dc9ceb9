import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mirrorStatusFile, writeMirrorStatus } from '../../../core/mirror-status.ts';
import { mirrorRecord, NOW, RECORDED_AT, stoppedClock, tinyCopy } from '../../fixtures/mirror-status.ts';
import { samplesOf, valueOf, type Sample } from '../../fixtures/prometheus.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';

const scrape = async (server: TestServer): Promise<Sample[]> => {
  const response = await server.fetch('/metrics');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return samplesOf(await response.text());
};

const LIVE = { feed: '/api/public/citybike/live', dataset: 'citybike' };

describe('the metrics at /metrics', () => {
  describe('of a server with no mirror', () => {
    let server: TestServer;
    let other: TestServer;
    beforeAll(async () => {
      server = await startTestServer({ clock: stoppedClock(NOW) });
      other = await startTestServer();
    });
    afterAll(async () => {
      await server?.close();
      await other?.close();
    });

    it('counts requests by routing-table line and by v1 endpoint path template, never by the URL asked', async () => {
      await server.fetch('/api/public/rcn/transactions/NO-SUCH-ID');
      await server.fetch('/api/public/rcn/transactions/NO-SUCH-ID-EITHER');
      await server.fetch('/api/public/rcn/transactions?limit=1');
      await server.fetch('/healthz');
      await server.fetch('/nowhere/at/all');
      await server.fetch('/healthz', { method: 'POST' });
      const samples = await scrape(server);
      const requests = (labels: Record<string, string>) => valueOf(samples, 'odsnap_http_requests_total', labels);
      expect(requests({ route: '/api/public/rcn/transactions/{transactionGmlId}', status: '404' })).toBe(2);
      expect(requests({ route: '/api/public/rcn/transactions', status: '200' })).toBe(1);
      expect(requests({ route: 'health', status: '200' })).toBe(1);
      expect(requests({ route: 'not found', status: '404' })).toBe(1);
      expect(requests({ route: 'refused before routing', status: '405' })).toBe(1);
      const routes = new Set(samples.filter((s) => s.name.startsWith('odsnap_http_')).map((s) => s.labels.route));
      expect([...routes].filter((route) => /NO-SUCH|nowhere/.test(route!))).toEqual([]);
      // Each request's time, in the histogram of its route.
      expect(valueOf(samples, 'odsnap_http_request_duration_seconds_count', { route: '/api/public/rcn/transactions/{transactionGmlId}' })).toBe(2);
      expect(valueOf(samples, 'odsnap_http_request_duration_seconds_bucket', { route: 'health', le: '+Inf' })).toBe(1);
    });

    it("gives the snapshot served, its id as an info metric and its age on the server's clock", async () => {
      const samples = await scrape(server);
      const { manifest } = server.host.current.snapshot;
      expect(valueOf(samples, 'odsnap_snapshot_info', { snapshot: manifest.id })).toBe(1);
      expect(valueOf(samples, 'odsnap_snapshot_age_seconds')).toBe((NOW - Date.parse(manifest.createdAt)) / 1000);
    });

    it("gives the process's own metrics, and none of the mirror's", async () => {
      const samples = await scrape(server);
      expect(valueOf(samples, 'process_cpu_seconds_total')).toBeGreaterThan(0);
      expect(valueOf(samples, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
      expect(samples.filter((s) => s.name.startsWith('odsnap_mirror_'))).toEqual([]);
    });

    it('counts apart from another server in the same process', async () => {
      await other.fetch('/api/public/citybike/zones');
      const samples = await scrape(server);
      expect(valueOf(samples, 'odsnap_http_requests_total', { route: '/api/public/citybike/zones' })).toBeUndefined();
      expect(valueOf(await scrape(other), 'odsnap_http_requests_total', { route: '/api/public/citybike/zones' })).toBe(1);
    });
  });

  describe('of a server whose data directory a mirror keeps current', () => {
    let dataDir: string;
    let server: TestServer;
    beforeAll(async () => {
      dataDir = await tinyCopy('metrics');
      await writeMirrorStatus(dataDir, mirrorRecord());
      server = await startTestServer({ dataDir, clock: stoppedClock(NOW) });
    });
    afterAll(() => server?.close());

    it("gives the mirror's record: pulls, each data set's last pull, each live feed's captures, lag and gaps", async () => {
      const samples = await scrape(server);
      expect(valueOf(samples, 'odsnap_mirror_updated_timestamp_seconds', { upstream: 'https://upstream.example.org' })).toBe(RECORDED_AT / 1000);
      expect(valueOf(samples, 'odsnap_mirror_pulls_total', { outcome: 'succeeded' })).toBe(41);
      expect(valueOf(samples, 'odsnap_mirror_pulls_total', { outcome: 'failed' })).toBe(3);
      expect(valueOf(samples, 'odsnap_mirror_last_pull_success_timestamp_seconds', { dataset: 'rcn' })).toBe(Date.parse('2026-11-02T06:00:00Z') / 1000);
      expect(valueOf(samples, 'odsnap_mirror_last_pull_duration_seconds', { dataset: 'rcn' })).toBe(95.5);
      expect(valueOf(samples, 'odsnap_mirror_last_pull_duration_seconds', { dataset: 'citybike' })).toBe(12);
      expect(valueOf(samples, 'odsnap_mirror_live_captures_total', LIVE)).toBe(2150);
      expect(valueOf(samples, 'odsnap_mirror_live_capture_failures_total', LIVE)).toBe(7);
      expect(valueOf(samples, 'odsnap_mirror_live_capture_lag_seconds', LIVE)).toBe(60);
      expect(valueOf(samples, 'odsnap_mirror_live_recent_gaps_seconds', LIVE)).toBe(7 * 60);
    });

    it('reads the record again when the mirror writes a new one, and drops its metrics when it is gone', async () => {
      await writeMirrorStatus(dataDir, { ...mirrorRecord(), pulls: { succeeded: 42, failed: 3 } });
      expect(valueOf(await scrape(server), 'odsnap_mirror_pulls_total', { outcome: 'succeeded' })).toBe(42);
      await rm(mirrorStatusFile(dataDir));
      expect((await scrape(server)).filter((s) => s.name.startsWith('odsnap_mirror_'))).toEqual([]);
    });
  });
});
