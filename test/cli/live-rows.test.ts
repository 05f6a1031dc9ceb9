import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceleratedClock } from '../../core/clock.ts';
import { datasets } from '../../datasets/index.ts';
import { archivedOrSnapshotted } from '../../cli/live-rows.ts';
import { LiveArchive } from '../../scripts/mirror/live-archive.ts';
import { captureFeed, liveFeedsOf } from '../../scripts/mirror/live-feeds.ts';
import { startFaultProxy, type FaultProxy } from '../fixtures/fault-proxy.ts';
import { pullFrom, tempDir } from '../fixtures/pull.ts';
import { startTestServer, type TestServer } from '../fixtures/server.ts';

const FEED = '/gbfs/citybike';

/** What the vehicle status says of the bicycles, ids and times aside (ids rotate with position). */
const vehicles = (status: { data: { vehicles: { lat: number; lon: number; is_disabled: boolean }[] } }) =>
  status.data.vehicles.map(({ lat, lon, is_disabled }) => ({ lat, lon, is_disabled })).sort((a, b) => a.lat - b.lat || a.lon - b.lon);

describe('the GBFS feed of a mirror kept current', () => {
  let upstream: TestServer;
  let proxy: FaultProxy;
  let mirror: TestServer;
  let archive: LiveArchive;
  let flipped = false;
  const clock = acceleratedClock(Date.now() + 3_600_000, 60);

  beforeAll(async () => {
    upstream = await startTestServer();
    // The live map as the upstream shows it, or with every bicycle's availability turned over.
    proxy = await startFaultProxy(upstream.url, ({ url }) =>
      flipped && url.pathname === '/api/public/citybike/live'
        ? { kind: 'rewrite', body: (live) => ({ ...live, bikes: live.bikes.map((bike: { available: boolean }) => ({ ...bike, available: !bike.available })) }) }
        : undefined,
    );
    const dataDir = await tempDir('live-rows');
    expect((await pullFrom(proxy.url, dataDir)).ok).toBe(true);
    archive = new LiveArchive(dataDir);
    mirror = await startTestServer({ dataDir, latestLive: archivedOrSnapshotted(dataDir) });
  });
  afterAll(async () => {
    archive?.close();
    await mirror?.close();
    await proxy?.close();
    await upstream?.close();
  });

  const capture = async () => {
    const feed = liveFeedsOf(datasets).find((f) => f.path === '/api/public/citybike/live')!;
    const captured = await captureFeed(feed, { upstreamUrl: proxy.url, archive, clock, timeoutMs: 5_000 });
    expect(captured.ok).toBe(true);
    return captured.ok ? captured.at : 0;
  };

  it('reads a capture of the same map as the snapshot does: the same vehicles, a later time', async () => {
    const before = await mirror.json(`${FEED}/vehicle_status.json`);
    const at = await capture();
    const after = await mirror.json(`${FEED}/vehicle_status.json`);
    expect(vehicles(after)).toEqual(vehicles(before));
    expect(Date.parse(after.last_updated)).toBe(at);
  });

  it('follows each capture of the live archive, not only each pull', async () => {
    const before = vehicles(await mirror.json(`${FEED}/vehicle_status.json`));
    flipped = true;
    await capture();
    const after = vehicles(await mirror.json(`${FEED}/vehicle_status.json`));
    expect(after).toEqual(before.map((vehicle) => ({ ...vehicle, is_disabled: !vehicle.is_disabled })));
  });
});
