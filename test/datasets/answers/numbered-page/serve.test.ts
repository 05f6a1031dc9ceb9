import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasets } from '../../../../datasets/index.ts';
import { readTable } from '../../../../core/snapshot/read.ts';
import { startTestServer, type TestServer } from '../../../fixtures/server.ts';
import { tinySnapshot, withDatabase } from '../../../fixtures/tiny.ts';

type Row = Record<string, any>;

let server: TestServer;
let rides: Row[];

beforeAll(async () => {
  server = await startTestServer();
  const snapshot = await tinySnapshot();
  const citybike = datasets[1]!;
  await withDatabase(async (db) => {
    rides = await readTable(db, snapshot, citybike, 'rides');
  });
});
afterAll(() => server.close());

describe('GET /api/public/citybike/rides', () => {
  it('pages through a range with exact hasNextPage, in start order, with every ride once', async () => {
    const seen: Row[] = [];
    let page = 1;
    for (let more = true; more; page++) {
      const body = await server.json(`/api/public/citybike/rides?from=2024-10-01&to=2025-09-30&pageSize=500&page=${page}&timezone=Europe/Warsaw`);
      expect(body).toMatchObject({ page, pageSize: 500 });
      seen.push(...body.data);
      more = body.hasNextPage;
      if (more) expect(body.data).toHaveLength(500);
    }
    expect(seen).toHaveLength(rides.length);
    const starts = seen.map((r) => Date.parse(r.startedAt));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect(new Set(seen.map((r) => JSON.stringify(r))).size).toBe(rides.length);
  });

  it('reads from and to as days in the requested time zone', async () => {
    for (const timezone of ['UTC', 'Europe/Warsaw', 'America/New_York']) {
      const body = await server.json(`/api/public/citybike/rides?from=2025-07-01&to=2025-07-03&pageSize=500&timezone=${timezone}`);
      const start = Date.parse(timezone === 'UTC' ? '2025-07-01T00:00:00Z' : timezone === 'Europe/Warsaw' ? '2025-06-30T22:00:00Z' : '2025-07-01T04:00:00Z');
      const expected = rides.filter((r) => r.started_at >= start && r.started_at < start + 3 * 86_400_000).length;
      expect(body.data.length, timezone).toBe(expected);
      expect(body.hasNextPage).toBe(false);
    }
  });
});
