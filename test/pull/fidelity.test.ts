import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDialectUpstream, type DialectUpstream } from '../fixtures/dialect-upstream.ts';
import { compare, corpusOf, type UpstreamUnderTest } from '../fixtures/fidelity.ts';
import { startFaultProxy, type Fault, type FaultProxy } from '../fixtures/fault-proxy.ts';
import { pullFrom, tempDir } from '../fixtures/pull.ts';
import { startTestServer, type TestServer } from '../fixtures/server.ts';

/**
 * A mirror must answer what its upstream answers, request for request, wherever the spec leaves
 * the upstream room: the sample city served by odsnap, and the same city served by another
 * implementation of the spec (test/fixtures/dialect-upstream.ts). Each is pulled, the pull is
 * served, and a corpus made from the upstream's own records goes to both.
 */

type Json = any;
const addressOf = (a: Json) => (a ? [a.locality ?? a.city, a.street ?? a.streetName, a.number ?? a.buildingNumber].filter(Boolean) : []);
const positionsIn = (value: Json): [number, number][] =>
  Array.isArray(value) && typeof value[0] === 'number' ? [[value[0], value[1]]]
  : Array.isArray(value) ? value.flatMap(positionsIn)
  : value && typeof value === 'object' ? Object.entries(value).flatMap(([key, v]) => (key === 'coordinates' || typeof v === 'object' ? positionsIn(v) : []))
  : [];

const sampleShapes = {
  parcelIds: (p: Json) => p.parcels.map((parcel: Json) => parcel.id),
  addressParts: (p: Json) => [...p.parcels, ...p.buildings, ...p.units].flatMap((e: Json) => addressOf(e.address)),
  positions: (p: Json) => positionsIn([...p.parcels, ...p.buildings, ...p.units]),
};
const dialectShapes = {
  parcelIds: (p: Json) => p.parcels.map((parcel: Json) => parcel.cadastral.teryt),
  addressParts: (p: Json) => [...p.parcels.map((e: Json) => e.location.address), ...p.buildings.map((e: Json) => e.address), ...p.units.map((e: Json) => e.properties.address)].flatMap(addressOf),
  positions: (p: Json) => positionsIn([...p.parcels, ...p.buildings, ...p.units]),
};

/** A few of each fault the pull tests inject, on the first requests of each kind. */
function faults(): (request: { url: URL; index: number }) => Fault | undefined {
  const seen = new Map<string, number>();
  const kinds: Fault[] = [{ kind: 'status', status: 503, retryAfter: '0' }, { kind: 'reset' }, { kind: 'truncate' }, { kind: 'malformed' }, { kind: 'status', status: 429 }];
  return ({ url }) => {
    const path = url.pathname.replace(/\/[^/]*\d[^/]*$/, '/{id}');
    const n = seen.get(path) ?? 0;
    seen.set(path, n + 1);
    return n < kinds.length && n % 2 === 0 ? kinds[(n / 2) % kinds.length] : undefined;
  };
}

describe.each([
  ['the sample city served by odsnap', false, false],
  ['the sample city served by another implementation', true, false],
  ['another implementation, pulled through a proxy that injects faults', true, true],
])('a mirror of %s', (_, dialect, faulty) => {
  let sample: TestServer;
  let other: DialectUpstream | undefined;
  let proxy: FaultProxy | undefined;
  let mirror: TestServer;
  let upstream: UpstreamUnderTest;
  let pull: Awaited<ReturnType<typeof pullFrom>>;

  beforeAll(async () => {
    sample = await startTestServer();
    other = dialect ? await startDialectUpstream(sample.url) : undefined;
    const served = other ?? sample;
    proxy = faulty ? await startFaultProxy(served.url, faults()) : undefined;
    upstream = { url: served.url, publicBase: other?.publicBase ?? sample.url, ...(dialect ? dialectShapes : sampleShapes) };
    const dataDir = await tempDir('fidelity');
    pull = await pullFrom(proxy?.url ?? served.url, dataDir);
    mirror = await startTestServer({ dataDir });
  }, 300_000);
  afterAll(async () => {
    await mirror?.close();
    await proxy?.close();
    await other?.close();
    await sample?.close();
  });

  it('pulls without a failure, saying nothing was left not understood', () => {
    expect(pull.failures).toEqual([]);
    expect(pull.ok).toBe(true);
    expect(pull.snapshot!.manifest.unread ?? {}).toEqual({});
    if (proxy) expect(Object.values(proxy.injected).reduce((a, b) => a + b, 0)).toBeGreaterThan(10);
  });

  it('answers a corpus of more than 500 requests exactly as the upstream does', async () => {
    const corpus = await corpusOf(upstream);
    expect(corpus.length).toBeGreaterThan(500);
    const result = await compare(upstream, mirror.url, corpus);
    console.log(`fidelity: ${result.identical} of ${result.requests} answers identical`, result.differingPaths);
    expect(result.differing).toEqual([]);
    expect(result.identical).toBe(result.requests);
  }, 300_000);
});
