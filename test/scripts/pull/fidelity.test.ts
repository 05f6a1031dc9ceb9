import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAND_PICKED, sampleShapes, shapesOf, startDialectUpstream, type DialectUpstream } from '../../fixtures/dialect-upstream.ts';
import { compare, corpusOf, type UpstreamUnderTest } from '../../fixtures/fidelity.ts';
import { startFaultProxy, type Fault, type FaultProxy } from '../../fixtures/fault-proxy.ts';
import { pullFrom, tempDir } from '../../fixtures/pull.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';

/**
 * A mirror must answer what its upstream answers, request for request, wherever the spec leaves
 * the upstream room: the sample city served by odsnap, and the same city served by another
 * implementation of the spec (test/fixtures/dialect-upstream.ts). Each is pulled, the pull is
 * served, and a corpus made from the upstream's own records goes to both.
 */

/** A few of each fault the pull tests inject, on the first requests of each kind. */
function faults(): (request: { url: URL; index: number }) => Fault | undefined {
  const seen = new Map<string, number>();
  const kinds: Fault[] = [
    { kind: 'status', status: 503, retryAfter: '0' },
    { kind: 'reset' },
    { kind: 'truncate' },
    { kind: 'malformed' },
    { kind: 'status', status: 429 },
  ];
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
    upstream = { url: served.url, publicBase: other?.publicBase ?? sample.url, ...(dialect ? shapesOf(HAND_PICKED) : sampleShapes) };
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
    console.log(`fidelity: ${result.identical} of ${result.requests} answers identical, ${result.sameBytes} byte for byte`, result.differingPaths);
    expect(result.differing).toEqual([]);
    expect(result.identical).toBe(result.requests);
  }, 300_000);
});
