import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../../../core/calendar.ts';
import { readTable } from '../../../../core/snapshot/read.ts';
import { datasets } from '../../../../datasets/index.ts';
import { answerAs } from '../../../../datasets/answers/index.ts';
import { Random } from '../../../../datasets/vocabulary/random.ts';
import { startTestServer, type TestServer } from '../../../fixtures/server.ts';
import { tinySnapshot, withDatabase } from '../../../fixtures/tiny.ts';

/**
 * A series' rows (and a numbered page's) are kept rendered in UTC, by parents and time (server/series-store.ts), and
 * moved into a request's zone as it is answered; rendered per request, they come from a DuckDB
 * statement. The two must answer every request alike, byte for byte: a server that keeps them is
 * compared with one that never does, over HTTP, for every series endpoint of every data set, on
 * parents drawn from the tiny sample, spans around its days, and zones with odd offsets and
 * changes of offset.
 */

type Row = Record<string, any>;
const ZONES = ['UTC', 'Europe/Warsaw', 'America/St_Johns', 'Asia/Kathmandu', 'Pacific/Chatham', 'America/New_York', 'Etc/GMT+12'];

let keeping: TestServer;
let reading: TestServer;
const rowsOf = new Map<string, Row[]>();

const seriesEndpoints = datasets.flatMap((dataset) =>
  dataset.endpoints.flatMap((endpoint) => {
    const answer = answerAs(endpoint.answer, 'series');
    return answer ? [{ dataset, endpoint, answer }] : [];
  }),
);

const numberedEndpoints = datasets.flatMap((dataset) =>
  dataset.endpoints.flatMap((endpoint) => {
    const answer = answerAs(endpoint.answer, 'numbered-page');
    return answer ? [{ dataset, endpoint, answer }] : [];
  }),
);

beforeAll(async () => {
  [keeping, reading] = await Promise.all([
    startTestServer({ publicUrl: 'http://odsnap.test' }),
    startTestServer({ publicUrl: 'http://odsnap.test', inProcess: false }),
  ]);
  const snapshot = await tinySnapshot();
  await withDatabase(async (db) => {
    const reads = [
      ...seriesEndpoints.map(({ dataset, answer }) => ({ dataset, resources: [answer.resource, ...answer.parents.map((parent) => parent.resource)] })),
      ...numberedEndpoints.map(({ dataset, answer }) => ({ dataset, resources: [answer.resource] })),
    ];
    for (const { dataset, resources } of reads) {
      for (const name of resources) {
        const table = dataset.resources[name]!.table;
        const key = `${dataset.name}/${table}`;
        if (!rowsOf.has(key)) rowsOf.set(key, await readTable(db, snapshot, dataset, table));
      }
    }
  });
});
afterAll(async () => {
  await keeping?.close();
  await reading?.close();
});

describe("a series' rows kept rendered", () => {
  it('are kept for every series endpoint, and not by a server told to keep nothing in its process', () => {
    expect(seriesEndpoints.length).toBeGreaterThan(0);
    for (const { dataset, answer } of seriesEndpoints) {
      const resource = dataset.resources[answer.resource]!;
      const columns = answer.parents.map((parent) => parent.column);
      expect(keeping.host.current.tables.series(dataset, resource, columns), `${dataset.name}/${resource.name}`).toBeDefined();
      expect(reading.host.current.tables.series(dataset, resource, columns)).toBeUndefined();
    }
  });

  it('answer as the rows read and rendered per request, in any zone and span, parents unknown or without rows too', async () => {
    const random = new Random('kept-series');
    for (const { dataset, endpoint, answer } of seriesEndpoints) {
      const rows = rowsOf.get(`${dataset.name}/${dataset.resources[answer.resource]!.table}`)!;
      const days = rows.map((row) => new Date(row[answer.time] as number).toISOString().slice(0, 10)).sort();
      const paths = Array.from({ length: 60 }, () => {
        const row = random.pick(rows);
        let path = endpoint.fullPath;
        for (const parent of answer.parents) {
          const parents = rowsOf.get(`${dataset.name}/${dataset.resources[parent.resource]!.table}`)!;
          // Mostly the row's own parent, found by any of its match columns; sometimes another, or none.
          const own = parents.find((p) => p[parent.key] === row[parent.column]) ?? random.pick(parents);
          const chosen = random.chance(0.85) ? own : random.pick(parents);
          const value = random.chance(0.05) ? 'no-such-parent' : String(chosen[random.pick(parent.match)] ?? chosen[parent.key]);
          path = path.replace(`{${parent.param}}`, encodeURIComponent(value));
        }
        const from = random.chance(0.8) ? new Date(row[answer.time] as number).toISOString().slice(0, 10) : random.pick([days[0]!, days.at(-1)!]);
        const query = new URLSearchParams({ from: addDays(from, -random.int(0, 2)), to: addDays(from, random.int(0, 40)) });
        if ('timezone' in endpoint.params && random.chance(0.8)) query.set('timezone', random.pick(ZONES));
        return `${path}?${query}`;
      });
      await sameAnswers(paths);
    }
  });

  it('give numbered pages as the rows read per request: any page, past the last too, in any zone', async () => {
    const random = new Random('kept-numbered-pages');
    expect(numberedEndpoints.length).toBeGreaterThan(0);
    for (const { dataset, endpoint, answer } of numberedEndpoints) {
      const resource = dataset.resources[answer.resource]!;
      expect(keeping.host.current.tables.series(dataset, resource, []), `${dataset.name}/${resource.name}`).toBeDefined();
      const rows = rowsOf.get(`${dataset.name}/${resource.table}`)!;
      const paths = Array.from({ length: 60 }, () => {
        const from = new Date(random.pick(rows)[answer.time] as number).toISOString().slice(0, 10);
        const query = new URLSearchParams({ from: addDays(from, -random.int(0, 1)), to: addDays(from, random.int(0, 3)) });
        if (random.chance(0.8)) query.set('pageSize', String(random.pick([1, 7, 100, 500])));
        if (random.chance(0.8)) query.set('page', String(random.pick([1, 2, 3, 40])));
        if (random.chance(0.8)) query.set('timezone', random.pick(ZONES));
        return `${endpoint.fullPath}?${query}`;
      });
      // Pages that end exactly where the range does, and one past it: whether there is a next page.
      for (let i = 0; i < 10; i++) {
        const day = new Date(random.pick(rows)[answer.time] as number).toISOString().slice(0, 10);
        const n = rows.filter((row) => new Date(row[answer.time] as number).toISOString().startsWith(day)).length;
        for (const [pageSize, page] of [
          [n, 1],
          [n + 1, 1],
          [Math.max(1, n - 1), 1],
          [Math.max(1, Math.ceil(n / 2)), 2],
        ])
          paths.push(`${endpoint.fullPath}?from=${day}&to=${day}&timezone=UTC&pageSize=${Math.min(500, pageSize!)}&page=${page}`);
      }
      await sameAnswers(paths);
    }
  });
});

async function sameAnswers(paths: readonly string[]): Promise<void> {
  for (const path of paths) {
    const [kept, read] = await Promise.all([keeping.fetch(path), reading.fetch(path)]);
    expect(kept.status, path).toBe(read.status);
    expect(await kept.text(), path).toBe(await read.text());
  }
}
