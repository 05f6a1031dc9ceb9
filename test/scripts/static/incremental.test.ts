import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../../core/calendar.ts';
import { defaultUntil } from '../../../datasets/vocabulary/sample.ts';
import { datasets } from '../../../datasets/index.ts';
import { generateSample } from '../../../scripts/sample/generate.ts';
import { buildStatic } from '../../../scripts/static/build-static.ts';
import { readState } from '../../../scripts/static/tree-state.ts';
import { INDEX } from '../../../core/published-tree.ts';
import { openSnapshot } from '../../../core/snapshot/read.ts';
import { tempDir } from '../../fixtures/tiny.ts';

/** Every file of a tree with its inode and content. */
async function snapshotOf(tree: string): Promise<Map<string, { ino: number; content: Buffer }>> {
  const files = new Map<string, { ino: number; content: Buffer }>();
  for (const entry of await readdir(tree, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(tree, path), { ino: (await stat(path)).ino, content: await readFile(path) });
  }
  return files;
}

describe('rebuilding the static tree', () => {
  let freshBuilds = 0;
  let dataDir: string;
  let out: string;

  beforeAll(async () => {
    const dir = await tempDir('static-incremental');
    dataDir = join(dir, 'data');
    out = join(dir, 'dist');
    await generateSample({ dataDir, datasets, settings: { scale: 'tiny', seed: 1, until: defaultUntil } });
  });

  it('writes nothing again when the snapshot has not changed', async () => {
    const first = await buildStatic({ dataDir, out, datasets });
    expect(first.written).toBeGreaterThan(2000);
    const second = await buildStatic({ dataDir, out, datasets });
    expect({ written: second.written, deleted: second.deleted }).toEqual({ written: 0, deleted: 0 });
    expect(second.tree).not.toBe(first.tree);
    const third = await buildStatic({ dataDir, out, datasets });
    expect({ written: third.written, linked: third.linked, deleted: third.deleted }).toEqual({ written: 0, linked: 0, deleted: 0 });

    // --full renders every file again, and still writes none whose content is unchanged.
    const full = await buildStatic({ dataDir, out, datasets, full: true });
    expect({ carried: full.carried, written: full.written, deleted: full.deleted }).toEqual({ carried: 0, written: 0, deleted: 0 });

    // Rows read as values wherever they can be, not as JSON (see SnapshotRows.stream): the same files.
    const asValues = await buildStatic({ dataDir, out, datasets, full: true, repeatedTextsFrom: 0 });
    expect({ carried: asValues.carried, written: asValues.written, deleted: asValues.deleted }).toEqual({ carried: 0, written: 0, deleted: 0 });
  });

  it('after the city grows by a day, writes exactly the files whose content changed', async () => {
    const before = await snapshotOf(await realpath(out));
    await generateSample({ dataDir, datasets, settings: { scale: 'tiny', seed: 1, until: addDays(defaultUntil, 1) } });
    const result = await buildStatic({ dataDir, out, datasets });
    const after = await snapshotOf(await realpath(out));

    const changed = [...after].filter(([path, file]) => !before.get(path)?.content.equals(file.content)).map(([path]) => path);
    const rewritten = [...after].filter(([path, file]) => before.get(path)?.ino !== file.ino).map(([path]) => path);
    expect(rewritten.sort()).toEqual(changed.sort());
    // A day more of readings and rides: some files, far from all.
    expect(changed.length).toBeGreaterThan(3);
    expect(changed.length).toBeLessThan(after.size / 4);
    expect(JSON.parse(after.get(INDEX)!.content.toString()).snapshot.id).not.toBe(JSON.parse(before.get(INDEX)!.content.toString()).snapshot.id);
    expect(result.written + result.linked).toBeGreaterThanOrEqual(changed.filter((p) => !p.endsWith('.parquet')).length);
    // Most files are not even rendered: their rows are unchanged. Register pages whose rows are
    // unchanged but whose list grew keep their rows and get a new total.
    const json = [...after.keys()].filter((path) => path.endsWith('.json')).length;
    expect(result.carried).toBeGreaterThan(json * 0.8);
    // The month of air history the day went on in keeps its rows: the day's are added to it.
    expect(result.extended).toBeGreaterThan(0);
    await expectSameAsFreshBuild(after);
  });

  it('keeps the group prints of the Parquet files it read beside the trees, and only those of the current snapshot', async () => {
    await buildStatic({ dataDir, out, datasets });
    const cached = await readdir(join(dirname(out), '.dist-trees', 'prints'));
    const { manifest } = await openSnapshot(dataDir);
    const files = new Set(Object.values(manifest.datasets).flatMap((d) => Object.values(d.tables).flatMap((t) => t.files.map((f) => f.sha256))));
    // Readings, history and rides are fingerprinted by month or day: a file of prints for each of their files.
    expect(cached.length).toBeGreaterThan(10);
    expect(cached.filter((name) => !files.has(name.split('-')[0]!))).toEqual([]);
  });

  it('gives register pages whose rows are unchanged the grown total without rendering their rows again', async () => {
    // Two days more bring a deed; it is the newest, so it lands on the last page of transactions.
    await generateSample({ dataDir, datasets, settings: { scale: 'tiny', seed: 1, until: addDays(defaultUntil, 3) } });
    const result = await buildStatic({ dataDir, out, datasets });
    const after = await snapshotOf(await realpath(out));
    const first = JSON.parse(after.get('api/public/rcn/transactions.json')!.content.toString());
    expect(first.pagination.total).toBe(199);
    expect(result.reenveloped).toBeGreaterThan(0);
    await expectSameAsFreshBuild(after);
  });

  /**
   * A rebuilt tree holds what a build from nothing makes of the same snapshot. The rebuild reads
   * the changed months of series in one scan; the build from nothing, series by series. The
   * rebuild reads items' prints first, then the rows that changed; the build from nothing, every
   * item with its print.
   */
  async function expectSameAsFreshBuild(tree: Map<string, { content: Buffer }>) {
    const freshTree = (await buildStatic({ dataDir, out: join(dirname(out), `fresh-${++freshBuilds}`), datasets, seriesInOneScan: 0, itemPrintsHeld: 0 })).tree;
    const fresh = await snapshotOf(freshTree);
    expect([...tree.keys()].sort()).toEqual([...fresh.keys()].sort());
    for (const [path, file] of fresh) expect(tree.get(path)!.content.equals(file.content), path).toBe(true);
    // Items are listed in the same segments, each file with the same print, whichever way they were read.
    const segmentsOf = async (dir: string) => {
      const state = (await readState(dir))!;
      const segments = [...state.segments].map(([key, { print, count, text }]) => [key, print, count, text()]);
      state.close();
      return segments;
    };
    expect(await segmentsOf(await realpath(out))).toEqual(await segmentsOf(freshTree));
  }

  it('leaves the tree in use as it was when a build stops half-way, and the next build completes', async () => {
    const inUse = await realpath(out);
    const before = await snapshotOf(inUse);
    await generateSample({ dataDir, datasets, settings: { scale: 'tiny', seed: 1, until: addDays(defaultUntil, 2) } });
    let files = 0;
    const stopping = buildStatic({
      dataDir,
      out,
      datasets,
      onProgress: () => {
        if (++files === 300) throw new Error('stopped');
      },
    });
    await expect(stopping).rejects.toThrow('stopped');
    expect(await realpath(out)).toBe(inUse);
    const untouched = await snapshotOf(inUse);
    expect([...untouched].every(([path, file]) => before.get(path)?.content.equals(file.content))).toBe(true);
    expect(untouched.size).toBe(before.size);

    await buildStatic({ dataDir, out, datasets });
    const fresh = join(await tempDir('static-fresh'), 'dist');
    await buildStatic({ dataDir, out: fresh, datasets });
    const resumed = await snapshotOf(await realpath(out));
    const whole = await snapshotOf(await realpath(fresh));
    expect([...resumed.keys()].sort()).toEqual([...whole.keys()].sort());
    for (const [path, file] of whole) expect(resumed.get(path)!.content.equals(file.content), path).toBe(true);
  });

  it('makes the CSV twin of each Parquet file once: a rebuild converts only the files a pull changed, and the cache keeps only the current ones', async () => {
    const steps: string[] = [];
    const onStep = (text: string) => steps.push(text);
    const cache = join(dirname(out), '.dist-trees', 'csv');
    const shas = async () =>
      new Set(
        Object.values((await openSnapshot(dataDir)).manifest.datasets).flatMap((d) => Object.values(d.tables).flatMap((t) => t.files.map((f) => f.sha256))),
      );
    await buildStatic({ dataDir, out, datasets, onStep });
    const before = await shas();
    expect(steps.filter((step) => step.startsWith('CSV twins:'))).toEqual([
      expect.stringMatching(new RegExp(`^CSV twins: 0 made from new Parquet files in [\\d.]+ s, ${before.size} kept from earlier builds$`)),
    ]);
    // A first build keeps nothing, and says nothing of earlier builds.
    steps.length = 0;
    await buildStatic({ dataDir, out: join(dirname(out), 'first-build'), datasets, onStep });
    expect(steps.filter((step) => step.startsWith('CSV twins:'))).toEqual([
      expect.stringMatching(new RegExp(`^CSV twins: ${before.size} made from new Parquet files in [\\d.]+ s$`)),
    ]);

    await generateSample({ dataDir, datasets, settings: { scale: 'tiny', seed: 1, until: addDays(defaultUntil, 5) } });
    const now = await shas();
    const changed = [...now].filter((sha) => !before.has(sha)).length;
    expect(changed).toBeGreaterThan(0);
    steps.length = 0;
    await buildStatic({ dataDir, out, datasets, onStep });
    expect(steps.find((step) => step.startsWith('CSV twins:'))).toMatch(
      new RegExp(`^CSV twins: ${changed} made from new Parquet files in [\\d.]+ s, ${now.size - changed} kept from earlier builds$`),
    );
    const cached = (await readdir(cache)).filter((name) => name.endsWith('.csv.gz'));
    expect(new Set(cached.map((name) => /-([0-9a-f]{64})\.csv\.gz$/.exec(name)![1]))).toEqual(now);
  });
});
