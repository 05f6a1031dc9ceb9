import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addDays } from '../../../core/calendar.ts';
import { defaultUntil } from '../../../datasets/vocabulary/sample.ts';
import { datasets } from '../../../datasets/index.ts';
import { generateSample } from '../../../scripts/sample/generate.ts';
import type { Manifest } from '../../../core/snapshot/manifest.ts';
import { createViews, type Snapshot } from '../../../core/snapshot/read.ts';
import { tinySnapshot, withDatabase } from '../../fixtures/tiny.ts';

const made: string[] = [];
afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));

async function tiny(seed: number, until = defaultUntil) {
  const dataDir = await mkdtemp(join(tmpdir(), 'odsnap-determinism-'));
  made.push(dataDir);
  return generateSample({ dataDir, datasets, settings: { scale: 'tiny', seed, until } });
}

const hashes = (manifest: Manifest) =>
  Object.values(manifest.datasets).flatMap((d) => Object.values(d.tables).flatMap((t) => t.files.map((f) => `${f.path} ${f.sha256}`)));

describe('the sample generator', () => {
  it('writes byte-identical Parquet files for the same arguments', async () => {
    const again = await tiny(1);
    const fixture = await tinySnapshot();
    expect(hashes(again.manifest)).toEqual(hashes(fixture.manifest));
    expect(again.id).toBe(fixture.id);
  });

  it('writes another city for another seed', async () => {
    const other = await tiny(2);
    const fixture = new Set(hashes((await tinySnapshot()).manifest));
    expect(hashes(other.manifest).filter((h) => fixture.has(h)).length).toBeLessThan(hashes(other.manifest).length / 2);
  });

  it('grows by a day with --until without changing what happened before', async () => {
    const before: Snapshot = await tinySnapshot();
    const after = await tiny(1, addDays(defaultUntil, 1));
    const cut = new Date(Date.parse(before.manifest.createdAt)).toISOString();
    /** For each table, the rows that existed at the earlier "now", which must be kept as they were. */
    const settled: Record<string, string> = {
      rcn_transactions: `id_rcn_version_id < '${cut}'`,
      citybike_rides: `finished_at < '${cut}'`,
      bike_counter_readings: `read_at < '${cut}'`,
      air_quality_readings: `read_at < '${cut}'`,
      citybike_bikes: 'true',
      air_quality_stations: 'true',
      air_quality_sensors: 'true',
    };
    await withDatabase(async (db) => {
      const count = async (sql: string) => Number((await db.rows<{ n: bigint }>(`SELECT count(*) AS n FROM (${sql})`))[0]!.n);
      await db.run(`CREATE SCHEMA old`);
      await db.run(`USE old`);
      await createViews(db, before, datasets);
      await db.run(`CREATE SCHEMA new`);
      await db.run(`USE new`);
      await createViews(db, after, datasets);
      for (const [view, where] of Object.entries(settled)) {
        const lost = await count(`SELECT * FROM old.${view} WHERE ${where} EXCEPT ALL SELECT * FROM new.${view} WHERE ${where}`);
        const added = await count(`SELECT * FROM new.${view} WHERE ${where} EXCEPT ALL SELECT * FROM old.${view} WHERE ${where}`);
        expect({ view, lost, added }).toEqual({ view, lost: 0, added: 0 });
      }
      expect(await count(`SELECT * FROM new.bike_counter_readings WHERE read_at >= '${cut}'`)).toBeGreaterThan(0);
    });
  });
});
