import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { datasets } from '../../datasets/index.ts';
import { createRouter } from '../../datasets/vocabulary/router.ts';
import { startTestServer, type TestServer } from '../fixtures/server.ts';

let server: TestServer;
beforeAll(async () => (server = await startTestServer()));
afterAll(() => server.close());

/** A request for every endpoint, with ids taken from the sample itself. */
async function examples(): Promise<string[]> {
  const p = '/api/public';
  const transactions = await server.json(`${p}/rcn/transactions?limit=1`);
  const properties = await server.json(`${p}/rcn/properties?limit=1`);
  const [bike] = await server.json(`${p}/citybike/bikes`);
  const [zone] = await server.json(`${p}/citybike/zones`);
  const [season] = await server.json(`${p}/citybike/seasons`);
  const [counter] = await server.json(`${p}/bike-counter/counters`);
  const stations = await server.json<{ id: string; externalId: string; historyEnabled: boolean }[]>(`${p}/air-quality/stations`);
  const station = stations.find((s) => s.historyEnabled)!;
  const dictionaries = await server.json<{ items: { name: string }[] }>(`${p}/rcn/dictionaries`);
  return [
    `${p}/rcn/transactions`,
    `${p}/rcn/transactions/${encodeURIComponent(transactions.items[0].id)}`,
    `${p}/rcn/properties`,
    `${p}/rcn/properties/${encodeURIComponent(properties.items[0].id)}`,
    `${p}/rcn/dictionaries`,
    ...dictionaries.items.map((d) => `${p}/rcn/dictionaries/${d.name}`),
    `${p}/citybike/bikes`,
    `${p}/citybike/bikes/${bike.number}`,
    `${p}/citybike/zones`,
    `${p}/citybike/zones/${zone.id}`,
    `${p}/citybike/seasons`,
    `${p}/citybike/seasons/${season.year}`,
    `${p}/citybike/rides?from=2025-06-01&to=2025-06-07&timezone=Europe/Warsaw`,
    `${p}/citybike/live`,
    `${p}/bike-counter/counters`,
    `${p}/bike-counter/counters/${counter.id}`,
    `${p}/bike-counter/counters/${counter.id}/readings?from=2025-06-01&to=2025-06-02`,
    `${p}/air-quality/stations`,
    `${p}/air-quality/stations/${station.id}`,
    `${p}/air-quality/stations/${station.externalId}`,
    `${p}/air-quality/sensors`,
    `${p}/air-quality/sensors/PM10`,
    `${p}/air-quality/history/${station.id}/PM10?from=2025-01-01&to=2025-01-02`,
    `${p}/air-quality/history/${station.externalId}/PM25?from=2025-01-01&to=2025-01-02&timezone=Europe/Warsaw`,
    `${p}/air-quality/live`,
    `${p}/air-quality/live/${station.externalId}`,
  ];
}

const LINK_FIELDS = new Set([
  'uri',
  'termUri',
  'propertyUri',
  'transactionUri',
  'seasonUri',
  'startedZoneUri',
  'finishedZoneUri',
  'counterUri',
  'sensorUri',
  'next',
]);

function* links(value: unknown): Generator<[string, string]> {
  if (Array.isArray(value)) for (const item of value) yield* links(item);
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (LINK_FIELDS.has(key) && typeof item === 'string') yield [key, item];
      else yield* links(item);
    }
  }
}

describe('the server', () => {
  let paths: string[];
  beforeAll(async () => (paths = await examples()));

  it('has an example request for every endpoint of the four data sets', () => {
    const route = createRouter(datasets);
    const covered = new Set(paths.map((path) => route(path.split('?')[0]!)?.endpoint.fullPath));
    for (const endpoint of datasets.flatMap((d) => d.endpoints)) expect(covered, endpoint.fullPath).toContain(endpoint.fullPath);
  });

  it('answers every endpoint with exactly the fields its schema declares', async () => {
    const route = createRouter(datasets);
    for (const path of paths) {
      const body = await server.json(path);
      const schema = route(path.split('?')[0]!)!.endpoint.response;
      const parsed = schema.safeParse(body);
      if (!parsed.success) throw new Error(`${path}: ${z.prettifyError(parsed.error)}`);
      expect(parsed.data, path).toEqual(body);
    }
  });

  it('gives absolute link fields that resolve to their resource here', async () => {
    const seen = new Map<string, string>();
    for (const path of paths) for (const [field, link] of links(await server.json(path))) seen.set(link, field);
    expect([...seen.values()]).toEqual(
      expect.arrayContaining([
        'uri',
        'termUri',
        'propertyUri',
        'transactionUri',
        'seasonUri',
        'startedZoneUri',
        'finishedZoneUri',
        'counterUri',
        'sensorUri',
        'next',
      ]),
    );
    for (const [link, field] of seen) {
      expect(link.startsWith(server.url), `${field} ${link}`).toBe(true);
      const [address, fragment] = link.split('#');
      const response = await server.fetch(address!);
      expect(response.status, `${field} ${link}`).toBe(200);
      const body = (await response.json()) as { items: { code: number }[] };
      if (fragment) expect(body.items.map((t: { code: number }) => `code-${t.code}`)).toContain(fragment);
    }
  });

  it('lists every data set and endpoint, the snapshot and its licence at / and /api/public', async () => {
    for (const path of ['/', '/api/public']) {
      const index = await server.json(path);
      expect(index.snapshot.id).toBe(server.host.current.id);
      expect(index.licence.id).toBe('CC-BY-4.0');
      expect(index.datasets.flatMap((d: { endpoints: { path: string }[] }) => d.endpoints.map((e) => e.path))).toEqual(
        datasets.flatMap((d) => d.endpoints.map((e) => e.fullPath)),
      );
      for (const dataset of index.datasets)
        for (const endpoint of dataset.endpoints) if (endpoint.url) expect((await server.fetch(endpoint.url)).status).toBe(200);
    }
  });

  it('answers a transaction by id with the item its list holds, links on the base however it is written', async () => {
    // `$&` and `$'` mean something to String.replace: the base must go in as it is.
    const base = "https://data.example.org/$&odsnap$'";
    const behindProxy = await startTestServer({ publicUrl: base });
    try {
      const { items } = await behindProxy.json<{ items: { id: string; uri: string }[] }>('/api/public/rcn/transactions?limit=20');
      expect(items.length).toBe(20);
      for (const item of items) {
        expect(item.uri.startsWith(`${base}/api/public/rcn/transactions/`)).toBe(true);
        expect(await behindProxy.json(`/api/public/rcn/transactions/${encodeURIComponent(item.id)}`)).toEqual(item);
      }
    } finally {
      await behindProxy.close();
    }
  });

  it('builds links on --public-url when one is given', async () => {
    const behindProxy = await startTestServer({ publicUrl: 'https://data.example.org/odsnap' });
    try {
      const { items } = await behindProxy.json('/api/public/rcn/transactions?limit=1');
      expect(items[0].uri).toMatch(/^https:\/\/data\.example\.org\/odsnap\/api\/public\/rcn\/transactions\//);
    } finally {
      await behindProxy.close();
    }
  });
});
