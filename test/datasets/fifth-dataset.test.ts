import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderContext } from '../../datasets/vocabulary/render.ts';
import { defaultUntil } from '../../datasets/vocabulary/sample.ts';
import { datasets } from '../../datasets/index.ts';
import { generateSample } from '../../scripts/sample/generate.ts';
import { createViews, openSnapshot, type Snapshot } from '../../core/snapshot/read.ts';
import { verifySnapshot } from '../../core/snapshot/verify.ts';
import { datasetContract } from '../fixtures/dataset-contract.ts';
import { parking } from '../fixtures/parking/index.ts';
import { renderEveryRow } from '../fixtures/rendered.ts';
import { withDatabase } from '../fixtures/tiny.ts';

describe('a fifth data set declared in one folder', () => {
  describe('declaration', () => datasetContract(parking));

  let dataDir: string;
  let snapshot: Snapshot;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'odsnap-fifth-'));
    await generateSample({ dataDir, datasets: [...datasets, parking], settings: { scale: 'tiny', seed: 1, until: defaultUntil } });
    snapshot = await openSnapshot(dataDir);
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('is generated into the snapshot beside the four, partitioned as declared', () => {
    expect(Object.keys(snapshot.manifest.datasets)).toEqual(['rcn', 'citybike', 'bike-counter', 'air-quality', 'parking']);
    const occupancy = snapshot.manifest.datasets.parking!.tables.occupancy!;
    expect(occupancy.files.map((f) => f.partition.car_park_id)).toEqual(['pr-1', 'pr-2', 'pr-3']);
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
});
