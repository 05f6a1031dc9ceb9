import { readFile, realpath, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderContext } from '../../datasets/vocabulary/render.ts';
import { defaultUntil } from '../../datasets/vocabulary/sample.ts';
import { datasets } from '../../datasets/index.ts';
import { INDEX } from '../../core/published-tree.ts';
import { generateSample } from '../../scripts/sample/generate.ts';
import { buildStatic } from '../../scripts/static/build-static.ts';
import { createViews, openSnapshot, type Snapshot } from '../../core/snapshot/read.ts';
import { verifySnapshot } from '../../core/snapshot/verify.ts';
import { datasetContract } from '../fixtures/dataset-contract.ts';
import { parking } from '../fixtures/parking/index.ts';
import { differences, pullFrom } from '../fixtures/pull.ts';
import { renderEveryRow } from '../fixtures/rendered.ts';
import { startTestServer, type TestServer } from '../fixtures/server.ts';
import { tempDir, withDatabase } from '../fixtures/tiny.ts';

/** The registry with the fifth data set: passed to every engine as the data sets to work on; no engine names it. */
const withParking = [...datasets, parking];

describe('a fifth data set declared in one folder', () => {
  describe('declaration', () => datasetContract(parking));

  let dataDir: string;
  let snapshot: Snapshot;
  let server: TestServer;
  beforeAll(async () => {
    dataDir = await tempDir('fifth');
    await generateSample({ dataDir, datasets: withParking, settings: { scale: 'tiny', seed: 1, until: defaultUntil } });
    snapshot = await openSnapshot(dataDir);
    server = await startTestServer({ dataDir, datasets: withParking });
  });
  afterAll(async () => {
    await server?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is generated into the snapshot beside the four, partitioned as declared', () => {
    expect(Object.keys(snapshot.manifest.datasets)).toEqual(['rcn', 'citybike', 'bike-counter', 'air-quality', 'parking']);
    const occupancy = snapshot.manifest.datasets.parking!.tables.occupancy!;
    expect(occupancy.files.map((f) => f.partition.car_park)).toEqual(['pr-1', 'pr-2', 'pr-3']);
    expect(occupancy.rows).toBeGreaterThan(3 * 24 * 300);
  });

  it('passes verify', async () => {
    expect((await verifySnapshot(snapshot.dir)).mismatches).toEqual([]);
  });

  it('gets SQL views and renders every row as its schema says', async () => {
    await withDatabase(async (db) => {
      expect(await createViews(db, snapshot, [parking])).toEqual(['parking_car_parks', 'parking_occupancy']);
      const rendered = await renderEveryRow(db, snapshot, parking, renderContext({ baseUrl: 'http://localhost:4321' }));
      for (const resource of Object.values(parking.resources)) {
        for (const item of rendered.get(resource.name)!) expect(resource.schema.parse(item)).toEqual(item);
      }
    });
  });

  it('is served over HTTP: its list, an item by id, a series, and a 404 for an id it lacks', async () => {
    const list = await server.json('/api/public/parking/car-parks');
    expect(list.map((c: { id: string }) => c.id)).toEqual(['pr-1', 'pr-2', 'pr-3']);
    const item = await server.json('/api/public/parking/car-parks/pr-2');
    expect(item).toEqual(list[1]);
    expect(item.uri).toBe(`${server.url}/api/public/parking/car-parks/pr-2`);
    const day = await server.json('/api/public/parking/car-parks/pr-2/occupancy?from=2025-06-01&to=2025-06-01&timezone=Europe/Warsaw');
    expect(day.readings).toHaveLength(24);
    expect(day.readings[0].readAt).toBe('2025-06-01T00:00:00+02:00');
    const missing = await server.fetch('/api/public/parking/car-parks/pr-9');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ status: 404, param: 'carParkId' });
    expect((await server.json('/api/public')).datasets.map((d: { name: string }) => d.name)).toContain('parking');
  });

  it('is queried over the SQL endpoint, whose process knows only what the server was given', async () => {
    const { rows } = await server.json(`/api/sql?q=${encodeURIComponent('SELECT count(*) AS n FROM parking_car_parks')}`);
    expect(rows[0].n).toBe(snapshot.manifest.datasets.parking!.tables.car_parks!.rows);
  });

  it('is built into the static tree, every file reachable from the index', async () => {
    const out = join(await tempDir('fifth-tree'), 'dist');
    await buildStatic({ dataDir, out, datasets: withParking });
    const tree = await realpath(out);
    const read = async (url: string) => JSON.parse(await readFile(join(tree, url.replace(/^\//, '')), 'utf8'));
    const index = await read(INDEX);
    const described = index.datasets.find((d: { name: string }) => d.name === 'parking');
    const files: Record<string, string[]> = {};
    for (const endpoint of described.endpoints) {
      files[endpoint.path] = [];
      for (let page: string | null = endpoint.listing; page; ) {
        const listing = await read(page);
        files[endpoint.path]!.push(...listing.files.map((f: { url: string }) => f.url));
        page = listing.next;
      }
    }
    expect(files['/api/public/parking/car-parks']).toEqual(['/api/public/parking/car-parks.json']);
    // Items are listed in buckets of a hash of their ids.
    expect(files['/api/public/parking/car-parks/{carParkId}']!.sort()).toEqual(
      ['pr-1', 'pr-2', 'pr-3'].map((id) => `/api/public/parking/car-parks/${id}.json`),
    );
    const months = files['/api/public/parking/car-parks/{carParkId}/occupancy']!;
    expect(months).toContain('/api/public/parking/car-parks/pr-2/occupancy/2025-06.json');
    // Each file holds what the server answers for the request it stands for, links into the tree.
    const item = await read('/api/public/parking/car-parks/pr-2.json');
    expect(item).toEqual({ ...(await server.json('/api/public/parking/car-parks/pr-2')), uri: '/api/public/parking/car-parks/pr-2.json' });
    const june = await read('/api/public/parking/car-parks/pr-2/occupancy/2025-06.json');
    expect(june).toEqual(await server.json('/api/public/parking/car-parks/pr-2/occupancy?from=2025-06-01&to=2025-06-30'));
    expect(index.downloads.catalogue).toBe('/downloads/catalogue.json');
    const catalogue = await read(index.downloads.catalogue);
    expect(catalogue.tables.map((t: { dataset: string; table: string }) => `${t.dataset}/${t.table}`)).toEqual(
      expect.arrayContaining(['parking/car_parks', 'parking/occupancy']),
    );
  });

  it('is pulled back from the server into the same rows', async () => {
    const pulledDir = await tempDir('fifth-pull');
    const pulled = await pullFrom(server.url, pulledDir, { datasets: withParking, only: ['parking'] });
    expect(pulled.failures).toEqual([]);
    expect(pulled.ok).toBe(true);
    expect(await differences(snapshot, await openSnapshot(pulledDir), [parking])).toEqual([]);
  });
});
