import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullSummary } from '../../../cli/pull-command.ts';
import { PullReport } from '../../../scripts/pull/report.ts';
import { startFaultProxy, type FaultProxy } from '../../fixtures/fault-proxy.ts';
import { capture } from '../../fixtures/output.ts';
import { pullFrom, tempDir } from '../../fixtures/pull.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';

type Json = any;

/**
 * An upstream whose parcels, buildings and units hold nothing odsnap can read a filter from (no
 * cadastral identifier, no address, no geometry): the pull still stores them as they came, and
 * says which filters will not match them, with an example, instead of a silent `total: 0` later.
 */
let upstream: TestServer;
let proxy: FaultProxy;
let pulled: Awaited<ReturnType<typeof pullFrom>>;

beforeAll(async () => {
  upstream = await startTestServer();
  const opaque = (element: Json) => ({ ref: 'x', area: element.areaM2 ?? element.usableAreaM2 ?? null });
  proxy = await startFaultProxy(upstream.url, ({ url }) =>
    /^\/api\/public\/rcn\/properties\/[^/]+$/.test(url.pathname)
      ? { kind: 'rewrite', body: (p: Json) => ({ ...p, parcels: p.parcels.map(opaque), buildings: p.buildings.map(opaque), units: p.units.map(opaque) }) }
      : undefined,
  );
  pulled = await pullFrom(proxy.url, await tempDir('unread'), { only: ['rcn'] });
});
afterAll(async () => {
  await proxy.close();
  await upstream.close();
});

describe('a pull that finds nothing a filter reads in some records', () => {
  it('still succeeds, keeping those records as they came', () => {
    expect(pulled.failures).toEqual([]);
    expect(pulled.ok).toBe(true);
  });

  it('names in the manifest each filter that cannot match them, how many, and one of them', () => {
    const unread = pulled.snapshot!.manifest.unread!.rcn!;
    expect(Object.keys(unread).sort()).toEqual(['address', 'bbox', 'parcelIdentifier']);
    for (const { records, example } of Object.values(unread)) {
      expect(records).toBeGreaterThan(100);
      expect(example).toMatch(/\/api\/public\/rcn\/properties\/[^/?]+\?version=v1$/);
    }
  });

  it('says so in the summary', () => {
    const summary = pullSummary(pulled, new PullReport(capture()));
    expect(summary).toMatch(
      /not understood: rcn parcelIdentifier: \d+ records hold nothing the filter reads \(e\.g\. http:\/\/\S+\/properties\/\S+\); it will not match them/,
    );
    expect(summary).toMatch(/not understood: rcn address:/);
    expect(summary).toMatch(/not understood: rcn bbox:/);
  });
});
