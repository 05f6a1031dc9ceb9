import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffSnapshots, type SnapshotDiff } from '../../../core/snapshot/diff.ts';
import { openSnapshot, type Snapshot } from '../../../core/snapshot/read.ts';
import { datasets } from '../../../datasets/index.ts';
import type { FaultProxy } from '../../fixtures/fault-proxy.ts';
import { expectedChanges } from '../../fixtures/history.ts';
import { pullTwice } from '../../fixtures/pulled-twice.ts';
import { capturedTables, tempDir } from '../../fixtures/pull.ts';
import type { TestServer } from '../../fixtures/server.ts';
import { tinyDataDir, withDatabase } from '../../fixtures/tiny.ts';
import { runOdsnap } from '../../fixtures/command.ts';

/** `odsnap diff` over a mirror pulled twice (test/fixtures/pulled-twice.ts), checked against what the sample itself changed. */

let upstream: TestServer;
let proxy: FaultProxy;
let mirrorDir: string;
let sampleBefore: Snapshot, sampleAfter: Snapshot;
let first: Snapshot, second: Snapshot;
let revised: string;

beforeAll(async () => {
  ({ upstream, proxy, mirrorDir, sampleBefore, sampleAfter, first, second, revised } = await pullTwice());
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

describe('odsnap diff', () => {
  let diff: SnapshotDiff;
  beforeAll(async () => {
    diff = await withDatabase((db) => diffSnapshots(db, first, second, datasets));
  });

  it('finds, by key, the rows the day added, removed and changed, as the sample itself says, and the revised price', async () => {
    let checked = 0;
    for (const dataset of datasets) {
      const captured = capturedTables(dataset);
      for (const table of Object.keys(dataset.tables)) {
        // Live captures depend on when each pull ran, not on the city.
        if (captured.has(table) || !sampleAfter.manifest.datasets[dataset.name]!.tables[table]!.key) continue;
        const found = diff.tables.find((t) => t.dataset === dataset.name && t.table === table)!;
        const expected = await expectedChanges(sampleBefore, sampleAfter, dataset.name, table);
        if (dataset.name === 'rcn' && (table === 'properties' || table === 'transactions')) expected.changed += 1;
        expect({ added: found.added, removed: found.removed, changed: found.changed }, `${dataset.name}/${table}`).toEqual(expected);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(5);
    const properties = diff.tables.find((t) => t.dataset === 'rcn' && t.table === 'properties')!;
    expect(properties.columns).toEqual({ gross_price: 1 });
    expect(properties.examples.changed).toEqual([revised]);
    const readings = diff.tables.find((t) => t.dataset === 'bike-counter' && t.table === 'readings')!;
    expect(readings.added).toBeGreaterThan(0);
    expect(readings.examples.added.length).toBe(5);
    // Columns are counted for changed rows only: an added row changed none.
    expect(readings.columns).toEqual({});
  });

  it('counts rows that only moved in the upstream’s list as reordered, not changed', () => {
    const zones = diff.tables.find((t) => t.dataset === 'citybike' && t.table === 'zones')!;
    const n = second.manifest.datasets.citybike!.tables.zones!.rows;
    expect(n).toBeGreaterThan(2);
    expect(zones).toMatchObject({ added: 0, removed: 0, changed: 0, reordered: n - (n % 2), columns: {} });
    expect(zones.examples.changed).toEqual([]);
  });

  it('compares rows of a table without a key whole: the rides the day added', async () => {
    const rides = diff.tables.find((t) => t.dataset === 'citybike' && t.table === 'rides')!;
    const expected = (await expectedChanges(sampleBefore, sampleAfter, 'citybike', 'rides')).added;
    expect(expected).toBeGreaterThan(0);
    expect(rides).toMatchObject({ key: null, added: expected, removed: 0, changed: 0 });
  });

  it('reads only the files whose sha256 differs between the manifests', async () => {
    // In a copy, every file the manifests say is the same in both is no Parquet at all in the older snapshot.
    const copy = await tempDir('history-unread');
    await cp(mirrorDir, copy, { recursive: true, verbatimSymlinks: true });
    const older = await openSnapshot(copy, first.id);
    let spoiled = 0;
    for (const [name, d] of Object.entries(second.manifest.datasets)) {
      for (const [table, t] of Object.entries(d.tables)) {
        for (const file of t.files.filter((f) => first.manifest.datasets[name]!.tables[table]!.files.some((g) => g.path === f.path && g.sha256 === f.sha256))) {
          await writeFile(join(older.dir, file.path), 'not parquet');
          spoiled++;
        }
      }
    }
    expect(spoiled).toBeGreaterThan(0);
    const again = await withDatabase(async (db) => diffSnapshots(db, older, await openSnapshot(copy, second.id), datasets));
    expect(again.tables).toEqual(diff.tables);
    for (const t of diff.tables) {
      const before = first.manifest.datasets[t.dataset]!.tables[t.table]!.files;
      const after = second.manifest.datasets[t.dataset]!.tables[t.table]!.files;
      const same = after.filter((f) => before.some((g) => g.path === f.path && g.sha256 === f.sha256)).length;
      expect(t.files, `${t.dataset}/${t.table}`).toEqual({ same, read: before.length + after.length - 2 * same });
    }
    expect(diff.tables.reduce((sum, t) => sum + t.files.same, 0)).toBeGreaterThan(0);
  });

  it('finds nothing between a snapshot and itself, reading no file', async () => {
    const none = await withDatabase((db) => diffSnapshots(db, second, second, datasets));
    for (const t of none.tables) expect(t).toMatchObject({ added: 0, removed: 0, changed: 0, reordered: 0, files: { read: 0 } });
  });

  it('on the command line compares the one before with the current by default, and names what it cannot find', async () => {
    const json = await runOdsnap('diff', '--data', mirrorDir, '--format', 'json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toEqual(JSON.parse(JSON.stringify(diff)));
    const text = await runOdsnap('diff', '--data', mirrorDir, first.id.slice(0, 20), '--dataset', 'rcn');
    expect(text.out).toMatch(new RegExp(`^from ${first.id} to ${second.id}`));
    expect(text.out).toMatch(/^rcn\/properties\s+0\s+0\s+1\s+0\s+gross_price 1$/m);
    expect(text.out).toContain(`rcn/properties changed: ${revised}`);
    expect(text.out).not.toMatch(/citybike/);
    const unknown = await runOdsnap('diff', '--data', mirrorDir, 'nope');
    expect(unknown.code).not.toBe(0);
    expect(unknown.err).toMatch(/holds no snapshot "nope"; run "odsnap snapshots/);
    const lonely = await tempDir('history-lonely');
    await cp(tinyDataDir(), lonely, { recursive: true, verbatimSymlinks: true });
    expect((await runOdsnap('diff', '--data', lonely)).err).toMatch(/holds one snapshot: a diff needs two/);
    // One id is FROM, compared with the current snapshot.
    expect((await runOdsnap('diff', '--data', mirrorDir, first.id)).out).toMatch(new RegExp(`^from ${first.id} to ${second.id}`));
  });
});
