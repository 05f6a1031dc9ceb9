import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeMirrorStatus } from '../../../core/mirror-status.ts';
import { mirrorRecord, tinyCopy } from '../../fixtures/mirror-status.ts';
import { prometheusBinary, startPrometheus, type RunningPrometheus } from '../../fixtures/prometheus.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';

// CI installs Prometheus (.ci/run) and must run this; elsewhere it needs it installed.
const skip = !prometheusBinary && !process.env.CI;
if (skip)
  console.warn('test/server/metrics/prometheus.test.ts: skipped, no Prometheus found (apt-get install prometheus, or set PROMETHEUS_PATH); CI never skips it');

/** The real Prometheus scraping a server every second: what it stores is what /metrics says, in names and labels it accepts. */
describe.skipIf(skip)('Prometheus scraping the server', () => {
  let server: TestServer;
  let prometheus: RunningPrometheus;

  beforeAll(async () => {
    const dataDir = await tinyCopy('prometheus');
    await writeMirrorStatus(dataDir, mirrorRecord());
    server = await startTestServer({ dataDir });
    prometheus = await startPrometheus(server.url, join(dataDir, '..', 'prometheus'));
    await prometheus.untilUp();
  });
  afterAll(async () => {
    await prometheus?.stop();
    await server?.close();
  });

  it('stores the requests made, by route and status', async () => {
    for (let i = 0; i < 3; i++) await server.fetch(`/api/public/rcn/transactions/NO-SUCH-ID-${i}`);
    await server.fetch('/api/public/status');
    const expression = 'odsnap_http_requests_total{job="odsnap",route="/api/public/rcn/transactions/{transactionGmlId}",status="404"}';
    const stored = await prometheus.until(expression, (result) => (result[0]?.value[1] === '3' ? result : undefined));
    expect(stored.map(({ metric }) => metric.route)).toEqual(['/api/public/rcn/transactions/{transactionGmlId}']);
    const status = await prometheus.until('sum by (route) (odsnap_http_requests_total{route="status"})', (result) => (result.length ? result : undefined));
    expect(Number(status[0]!.value[1])).toBe(1);
  });

  it("stores the mirror's record as the server read it", async () => {
    const pulls = await prometheus.query('odsnap_mirror_pulls_total');
    expect(Object.fromEntries(pulls.map(({ metric, value }) => [metric.outcome, Number(value[1])]))).toEqual({ succeeded: 41, failed: 3 });
    const gaps = await prometheus.query('odsnap_mirror_live_recent_gaps_seconds{dataset="citybike"}');
    expect(gaps.map(({ metric, value }) => [metric.feed, Number(value[1])])).toEqual([['/api/public/citybike/live', 420]]);
  });
});
