import { readdir, realpath, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeMirrorStatus } from '../../../core/mirror-status.ts';
import { INDEX, STATUS_FILE } from '../../../core/published-tree.ts';
import { datasets } from '../../../datasets/index.ts';
import { buildStatic } from '../../../scripts/static/build-static.ts';
import { staticTree } from '../../../server/static-tree.ts';
import { mirrorRecord, NOW, RECORDED_AT, stoppedClock, tinyCopy } from '../../fixtures/mirror-status.ts';
import { raw } from '../../fixtures/raw-http.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';
import { readJson } from '../../fixtures/tree-parity.ts';

/** Every file of a tree by its path, with its inode: a file a build rewrote has a new one. */
async function inodes(tree: string): Promise<Map<string, number>> {
  const files = new Map<string, number>();
  for (const entry of await readdir(tree, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files.set(relative(tree, join(entry.parentPath, entry.name)), (await stat(join(entry.parentPath, entry.name))).ino);
  }
  return files;
}

describe("the static tree's status file", () => {
  let dataDir: string;
  let out: string;
  let server: TestServer | undefined;

  beforeAll(async () => {
    dataDir = await tinyCopy('tree-status');
    out = join(dataDir, '..', 'dist');
  });
  afterAll(() => server?.close());

  it("says, with no mirror, that there is none, as of the snapshot's making, and the index links it", async () => {
    await buildStatic({ dataDir, out, datasets });
    const status = await readJson(out, STATUS_FILE);
    const index = await readJson(out, INDEX);
    expect(status).toMatchObject({
      asOf: new Date(Date.parse(index.snapshot.createdAt)).toISOString(),
      snapshot: { id: index.snapshot.id, ageSeconds: 0 },
      mirror: null,
    });
    expect(index.status).toBe(`/${STATUS_FILE}`);
  });

  it("holds the mirror's record as the build found it, lags as of that record; a rebuild for a new record rewrites that file alone", async () => {
    const tree = await realpath(out);
    const before = await inodes(tree);
    await writeMirrorStatus(dataDir, mirrorRecord());
    await buildStatic({ dataDir, out, datasets });
    const status = await readJson(out, STATUS_FILE);
    expect(status.asOf).toBe(new Date(RECORDED_AT).toISOString());
    expect(status.mirror.datasets.rcn).toMatchObject({ lagSeconds: 6 * 3600, failing: true, nextRun: '2026-11-02T18:00:00Z' });
    expect(status.mirror.live['/api/public/citybike/live']).toMatchObject({ lagSeconds: 0, captures: 2150 });

    const after = await inodes(await realpath(out));
    const rewritten = [...after].filter(([path, ino]) => before.get(path) !== ino).map(([path]) => path);
    expect(rewritten.sort()).toEqual([STATUS_FILE, `${STATUS_FILE}.br`, `${STATUS_FILE}.gz`]);
  });

  it('is not written again by a rebuild with nothing new', async () => {
    const result = await buildStatic({ dataDir, out, datasets });
    expect({ written: result.written, deleted: result.deleted }).toEqual({ written: 0, deleted: 0 });
  });

  it('is served by odsnap serve --static at its path as the build wrote it, beside the live status resource', async () => {
    server = await startTestServer({ dataDir, tree: staticTree(out), clock: stoppedClock(NOW) });
    const file = await raw(server.url, { path: `/${STATUS_FILE}` });
    expect(file.headers['accept-ranges']).toBe('bytes');
    expect(JSON.parse(file.body.toString()).asOf).toBe(new Date(RECORDED_AT).toISOString());
    expect((await server.json('/api/public/status')).asOf).toBe(new Date(NOW).toISOString());
  });
});
