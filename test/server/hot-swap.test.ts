import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../core/calendar.ts';
import { defaultUntil } from '../../datasets/vocabulary/sample.ts';
import { datasets } from '../../datasets/index.ts';
import { generateSample } from '../../scripts/sample/generate.ts';
import { startTestServer, type TestServer, untilServing } from '../fixtures/server.ts';
import { tinyDataDir } from '../fixtures/tiny.ts';

let dataDir: string;
let server: TestServer;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'odsnap-swap-'));
  await cp(tinyDataDir(), dataDir, { recursive: true, verbatimSymlinks: true });
  server = await startTestServer({ dataDir, watch: true });
});
afterAll(async () => {
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Answers that differ between the two snapshots: counters synchronise later, live readings move on, the season grows. */
const paths = ['/api/public/bike-counter/counters', '/api/public/air-quality/live', '/api/public/citybike/seasons'];

describe('hot swap', () => {
  it('moves to a new current snapshot under load with no failed or mixed answer and no restart', async () => {
    const oldId = server.host.current.id;
    const before = new Map<string, string>();
    for (const path of paths) before.set(path, await (await server.fetch(path)).text());

    const answers: { path: string; status: number; snapshot: string | null; body: string }[] = [];
    let running = true;
    const client = async () => {
      for (let i = 0; running; i++) {
        const path = paths[i % paths.length]!;
        const response = await server.fetch(path);
        answers.push({ path, status: response.status, snapshot: response.headers.get('x-odsnap-snapshot'), body: await response.text() });
      }
    };
    const clients = Array.from({ length: 6 }, client);

    const next = await generateSample({ dataDir, datasets, settings: { scale: 'tiny', seed: 1, until: addDays(defaultUntil, 1) } });
    await untilServing(server, next.id);
    await new Promise((resolve) => setTimeout(resolve, 300));
    running = false;
    await Promise.all(clients);

    const after = new Map<string, string>();
    for (const path of paths) after.set(path, await (await server.fetch(path)).text());
    expect(next.id).not.toBe(oldId);
    expect(answers.length).toBeGreaterThan(50);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      const expected = answer.snapshot === oldId ? before.get(answer.path) : answer.snapshot === next.id ? after.get(answer.path) : undefined;
      expect(answer.body, `${answer.path} from ${answer.snapshot}`).toBe(expected);
    }
    expect(new Set(answers.map((a) => a.snapshot))).toEqual(new Set([oldId, next.id]));
    for (const path of paths) expect(after.get(path), path).not.toBe(before.get(path));
    expect(server.logs.filter((line) => line.event === 'snapshot')).toMatchObject([{ snapshot: next.id, previous: oldId }]);
  });
});
