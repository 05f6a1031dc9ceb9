import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasets } from '../../../datasets/index.ts';
import { openSnapshot, readTable, type Snapshot } from '../../../core/snapshot/read.ts';
import { verifySnapshot } from '../../../core/snapshot/verify.ts';
import { capturedTables, differences, pullFrom, tempDir } from '../../fixtures/pull.ts';
import { startFaultProxy, type FaultProxy } from '../../fixtures/fault-proxy.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';
import { tinySnapshot, withDatabase } from '../../fixtures/tiny.ts';

let upstream: TestServer;
let recorder: FaultProxy;
let sample: Snapshot;
let pulled: Awaited<ReturnType<typeof pullFrom>>;
let snapshot: Snapshot;

beforeAll(async () => {
  upstream = await startTestServer();
  recorder = await startFaultProxy(upstream.url);
  sample = await tinySnapshot();
  const dataDir = await tempDir('pull');
  pulled = await pullFrom(recorder.url, dataDir);
  snapshot = await openSnapshot(dataDir);
});
afterAll(async () => {
  await recorder.close();
  await upstream.close();
});

describe('pulling the sample city from its own server', () => {
  it('succeeds, and the new snapshot is current and verifies', async () => {
    expect(pulled.failures).toEqual([]);
    expect(pulled.ok).toBe(true);
    expect(snapshot.id).toBe(pulled.snapshot!.id);
    expect(snapshot.manifest.source).toEqual({ kind: 'pull', upstream: recorder.url });
    expect((await verifySnapshot(snapshot.dir)).mismatches).toEqual([]);
  });

  it('holds exactly the rows of the sample, table by table', async () => {
    expect(await differences(sample, snapshot)).toEqual([]);
  });

  it('keeps where each record stood in the lists it came in, and so their order', async () => {
    const positioned = datasets.flatMap((dataset) =>
      Object.values(dataset.tables)
        .filter((t) => 'list_position' in t.columns && !capturedTables(dataset).has(t.name))
        .map((table) => [dataset, table] as const),
    );
    expect(positioned.length).toBeGreaterThanOrEqual(8);
    for (const [dataset, table] of positioned) {
      // The sample holds no positions, so its tables come in their own order: the order it serves its lists in.
      const theirs = await withDatabase((db) => readTable(db, sample, dataset, table.name));
      const ours = await withDatabase((db) => readTable(db, snapshot, dataset, table.name));
      const key = (row: Record<string, unknown>) => JSON.stringify(table.key!.map((k) => row[k]));
      expect(theirs.every((row) => row.list_position === null)).toBe(true);
      expect(
        ours.map((row) => row.list_position),
        `${dataset.name}/${table.name}`,
      ).toEqual(ours.map((_, i) => i));
      expect(ours.map(key), `${dataset.name}/${table.name}`).toEqual(theirs.map(key));
    }
  });

  it('captures the live endpoints with the time of the pull', async () => {
    for (const dataset of datasets) {
      for (const table of capturedTables(dataset)) {
        const rows = await withDatabase((db) => readTable(db, snapshot, dataset, table));
        const sampleRows = await withDatabase((db) => readTable(db, sample, dataset, table));
        expect(rows.length, `${dataset.name}/${table}`).toBe(sampleRows.length);
        const capturedAt = new Set(rows.map((row) => row.captured_at));
        expect(capturedAt.size).toBe(1);
        expect(Math.abs(Number([...capturedAt][0]) - Date.now())).toBeLessThan(120_000);
      }
    }
  });

  it('asks every request with version=v1', () => {
    expect(recorder.requests.length).toBe(pulled.requests);
    for (const request of recorder.requests) expect(new URL(request, 'http://x').searchParams.get('version'), request).toBe('v1');
  });

  it('reports what it fetched', () => {
    expect(pulled.log).toContain('"event":"progress"');
    expect(pulled.quarantined).toBe(0);
    expect(pulled.tables.find((t) => t.table === 'citybike/rides')!.rows).toBeGreaterThan(1000);
  });
});
