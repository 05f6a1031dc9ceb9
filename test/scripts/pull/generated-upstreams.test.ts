import fc from 'fast-check';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAND_PICKED, shapesOf, startDialectUpstream, type Dialect } from '../../fixtures/dialect-upstream.ts';
import { dialects, NOT_YET_DRAWN } from '../../fixtures/dialects.ts';
import { compare, corpusOf } from '../../fixtures/fidelity.ts';
import { openSnapshot, tableFiles, tableSource } from '../../../core/snapshot/read.ts';
import { withDatabase } from '../../fixtures/tiny.ts';
import { pullFrom, tempDir } from '../../fixtures/pull.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';

/**
 * Upstreams written by others, drawn rather than picked: for each draw of the room the spec
 * leaves (test/fixtures/dialects.ts), the sample city is served in that dialect, pulled, served
 * by the mirror, and a corpus made from the upstream's own records goes to both. A few draws run
 * with the suite; `npm run test:dialects` runs many, from a seed it prints. To replay a failure:
 * ODSNAP_DIALECT_SEED=<seed> ODSNAP_DIALECT_PATH=<path> npx vitest run test/scripts/pull/generated-upstreams.test.ts
 */

const runs = Number(process.env.ODSNAP_DIALECTS ?? 3);
const seed = Number(process.env.ODSNAP_DIALECT_SEED ?? 20261127);
const path = process.env.ODSNAP_DIALECT_PATH;

let sample: TestServer;
beforeAll(async () => (sample = await startTestServer()));
afterAll(async () => sample?.close());

describe('a mirror of an upstream drawn from what the spec allows', () => {
  it(
    `answers every request of its corpus as the upstream does (${runs} draws, seed ${seed})`,
    async () => {
      const tally = { draws: 0, requests: 0, identical: 0, sameBytes: 0 };
      /** Identical answers whose bytes differ, by dialect dimension value and path: what is not yet written as the upstream writes it. */
      const bytes: Record<string, number> = {};
      await fc.assert(
        fc.asyncProperty(dialects, async (dialect) => {
          const upstream = await startDialectUpstream(sample.url, dialect);
          const dataDir = await tempDir('dialect');
          let mirror: TestServer | undefined;
          try {
            const pulled = await pullFrom(upstream.url, dataDir);
            expect(pulled.failures, JSON.stringify(dialect)).toEqual([]);
            expect(pulled.snapshot!.manifest.unread ?? {}, JSON.stringify(dialect)).toEqual({});
            upstream.calm();
            mirror = await startTestServer({ dataDir });
            const corpus = await corpusOf({ url: upstream.url, publicBase: upstream.publicBase, ...shapesOf(dialect) });
            const result = await compare({ url: upstream.url, publicBase: upstream.publicBase, ...shapesOf(dialect) }, mirror.url, corpus);
            Object.assign(tally, {
              draws: tally.draws + 1,
              requests: tally.requests + result.requests,
              identical: tally.identical + result.identical,
              sameBytes: tally.sameBytes + result.sameBytes,
            });
            for (const [where, n] of Object.entries(result.bytesDifferingPaths)) bytes[where] = (bytes[where] ?? 0) + n;
            if (process.env.ODSNAP_DIALECT_BYTES)
              console.log(JSON.stringify({ dialect, sameBytes: result.sameBytes, requests: result.requests, first: result.bytesDiffer }));
            expect(result.differing, JSON.stringify(dialect)).toEqual([]);
          } finally {
            await mirror?.close();
            await upstream.close();
            await rm(dataDir, { recursive: true, force: true });
          }
        }),
        { numRuns: runs, seed, ...(path ? { path } : {}), endOnFailure: true, verbose: true },
      );
      console.log(
        `generated upstreams: ${tally.draws} draws (seed ${seed}), ${tally.identical} of ${tally.requests} answers identical, ${tally.sameBytes} byte for byte; not drawn yet: ${NOT_YET_DRAWN.join('; ')}`,
      );
      console.log(`identical, not byte for byte, by status and path: ${JSON.stringify(bytes)}`);
    },
    // A draw takes under a minute on a quiet machine; a loaded one, running the suite beside it, takes up to twice that.
    60_000 + runs * 120_000,
  );
});

describe('a mirror of an upstream whose ranges of days are its own', () => {
  it.each<[string, Partial<Dialect>, Record<string, unknown>]>([
    [
      'a `to` that includes the next midnight, rides by overlap',
      { toInclusive: true, ridesBy: 'overlap' },
      { rides: { by: 'overlap' }, readings: { toInclusive: true } },
    ],
    ['rides by their end', { ridesBy: 'end' }, { rides: { by: 'end' }, readings: { toInclusive: false } }],
    [
      '(parcels in GML 3.2 in EPSG:2180, northing first; ids with colons unescaped in links)',
      { geometry: 'gml32-2180', renamedShapes: false, idColons: true },
      { rides: { by: 'start' }, readings: { toInclusive: false } },
    ],
  ])(
    'learns %s by asking, and answers as the upstream does',
    async (_, differs, learned) => {
      const dialect = { ...HAND_PICKED, ...differs };
      const upstream = await startDialectUpstream(sample.url, dialect);
      const dataDir = await tempDir('ranges');
      let mirror: TestServer | undefined;
      try {
        const pulled = await pullFrom(upstream.url, dataDir);
        expect(pulled.failures).toEqual([]);
        expect(pulled.snapshot!.manifest.unread ?? {}).toEqual({});
        const snapshot = await openSnapshot(dataDir);
        const endpoints = snapshot.manifest.endpoints!;
        // Windows that both return a ride (one across their edge, by overlap) store it once.
        const [rides] = await withDatabase((db) =>
          db.rows<{ all: number; distinct: number }>(
            `SELECT count(*)::INT AS "all", (SELECT count(*) FROM (SELECT DISTINCT * EXCLUDE (extra, upstream_json) FROM ${tableSource(tableFiles(snapshot, 'citybike', 'rides'))}))::INT AS "distinct" FROM ${tableSource(tableFiles(snapshot, 'citybike', 'rides'))}`,
          ),
        );
        expect(rides!.all).toBe(rides!.distinct);
        expect(endpoints['/api/public/citybike/rides']!.range).toMatchObject(learned.rides!);
        expect(endpoints['/api/public/bike-counter/counters/{counterId}/readings']!.range).toMatchObject(learned.readings!);
        mirror = await startTestServer({ dataDir });
        const under = { url: upstream.url, publicBase: upstream.publicBase, ...shapesOf(dialect) };
        const result = await compare(under, mirror.url, await corpusOf(under));
        expect(result.differing).toEqual([]);
      } finally {
        await mirror?.close();
        await upstream.close();
        await rm(dataDir, { recursive: true, force: true });
      }
    },
    300_000,
  );
});

describe('a mirror of an upstream whose envelopes are its own', () => {
  it('learns their key order, the keys that count the answer, how `next` and offsets in a zone are written, and answers byte for byte as the upstream does, live feeds included', async () => {
    // Numbers with trailing zeros too: the live feeds, composed from their parts, keep their records' text.
    // Offsets in a zone in forms of their own: ±hhmm, and Z at zero where UTC itself is +00:00.
    const zoneOffsets = { nonZero: '+hhmm', zero: 'Z' } as const;
    const dialect: Dialect = {
      ...HAND_PICKED,
      keys: 'reversed',
      decimals: 3,
      countedEnvelopes: true,
      next: { form: 'path', order: 'declared' },
      zoneOffsets,
      publicBase: 'https://api.example.com/open/data/v1',
    };
    const upstream = await startDialectUpstream(sample.url, dialect);
    const dataDir = await tempDir('envelopes');
    let mirror: TestServer | undefined;
    try {
      const pulled = await pullFrom(upstream.url, dataDir);
      expect(pulled.failures).toEqual([]);
      const endpoints = (await openSnapshot(dataDir)).manifest.endpoints!;
      expect(endpoints['/api/public/citybike/rides']!.template!.derived).toEqual({ totalElements: 'total', totalPages: 'pages' });
      expect(endpoints['/api/public/rcn/transactions']!.template!.derived).toEqual({ 'pagination.pages': 'pages' });
      expect(endpoints['/api/public/rcn/transactions']!.next).toEqual({ form: 'path', order: 'declared' });
      for (const zoned of [
        '/api/public/citybike/rides',
        '/api/public/bike-counter/counters/{counterId}/readings',
        '/api/public/air-quality/history/{stationId}/{sensorCode}',
      ])
        expect(endpoints[zoned]!.zoneOffsets).toEqual(zoneOffsets);
      expect(Object.values(endpoints).flatMap((endpoint) => endpoint.unlearned ?? [])).toEqual([]);
      upstream.calm();
      mirror = await startTestServer({ dataDir });
      const under = { url: upstream.url, publicBase: upstream.publicBase, ...shapesOf(dialect) };
      const result = await compare(under, mirror.url, await corpusOf(under));
      expect(result.differing).toEqual([]);
      // Refusals aside: the mirror's are RFC 9457 problems of its own, the same status as the upstream's.
      expect(result.bytesDiffer.filter((d) => d.status === 200)).toEqual([]);
      expect(result.sameBytes).toBe(result.requests - result.bytesDiffer.length);
    } finally {
      await mirror?.close();
      await upstream.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 300_000);
});
