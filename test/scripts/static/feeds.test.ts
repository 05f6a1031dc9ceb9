import { readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INDEX } from '../../../core/published-tree.ts';
import { datasets } from '../../../datasets/index.ts';
import { buildStatic, type BuildResult } from '../../../scripts/static/build-static.ts';
import { writeFeeds } from '../../../scripts/static/feeds.ts';
import { SnapshotRows } from '../../../scripts/static/snapshot-rows.ts';
import { staticContext } from '../../../scripts/static/static-context.ts';
import type { TreeOutput } from '../../../scripts/static/tree-output.ts';
import { GBFS_FILES, gbfsSchemaErrors } from '../../fixtures/gbfs.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';
import { tempDir, tinyDataDir, tinySnapshot, withDatabase } from '../../fixtures/tiny.ts';

const BASE = 'https://cdn.example.org/odsnap';
const FEED = 'gbfs/citybike';

describe('the GBFS feed in the static tree', () => {
  let tree: string;
  let built: BuildResult;
  let server: TestServer;

  beforeAll(async () => {
    const out = join(await tempDir('feeds'), 'dist');
    built = await buildStatic({ dataDir: tinyDataDir(), out, datasets, base: BASE, publisher: { contact: 'mailto:feeds@example.org' } });
    tree = await realpath(out);
    server = await startTestServer({ contact: 'feeds@example.org' });
  });
  afterAll(() => server?.close());

  const fileOf = async (file: string) => JSON.parse(await readFile(join(tree, FEED, file), 'utf8'));

  it('writes every file valid under the official GBFS 3.0 schema, gbfs.json listing them by their URLs under the base', async () => {
    for (const file of GBFS_FILES) expect(gbfsSchemaErrors(file, await fileOf(file)), file).toEqual([]);
    const listed = (await fileOf('gbfs.json')).data.feeds.map((feed: { url: string }) => feed.url);
    expect(listed).toEqual(GBFS_FILES.slice(1).map((file) => `${BASE}/${FEED}/${file}`));
  });

  it('is linked from the tree’s index, as the server’s index links the documents it answers', async () => {
    const index = JSON.parse(await readFile(join(tree, INDEX), 'utf8'));
    const feeds = index.datasets.find((dataset: { name: string }) => dataset.name === 'citybike').feeds;
    expect(feeds.map((feed: { files: string[] }) => feed.files)).toEqual([GBFS_FILES.map((file) => `${BASE}/${FEED}/${file}`)]);
    const served = (await server.json('/api/public')).datasets.find((dataset: { name: string }) => dataset.name === 'citybike').feeds;
    expect(served.map((feed: { files: string[] }) => feed.files)).toEqual([GBFS_FILES.map((file) => new URL(`${FEED}/${file}`, server.url).href)]);
  });

  it('holds the documents the server answers over the same snapshot', async () => {
    for (const file of GBFS_FILES.slice(1)) expect(await fileOf(file), file).toEqual(await server.json(`/${FEED}/${file}`));
  });

  it('says what the feed leaves out of the snapshot: the bicycles of a type GBFS cannot be told without guessing', () => {
    expect(built.warnings.filter((warning) => warning.includes('leaves out'))).toEqual([]);
    expect(built.notes).toContainEqual(expect.stringMatching(/^gbfs\/citybike\/vehicle_status\.json leaves out \d+ bicycle\(s\) of type "electric"/));
  });
});

describe('writeFeeds', () => {
  it('leaves gbfs.json out of a tree with root-relative links, GBFS listing its files by absolute URL, and says how to have it', async () => {
    const snapshot = await tinySnapshot();
    const written: string[] = [];
    const output = { write: async (path: string) => void written.push(path) } as unknown as TreeOutput;
    const { paths, warnings } = await withDatabase((db) =>
      writeFeeds(output, { datasets, rows: new SnapshotRows(db, snapshot), manifest: snapshot.manifest, base: '', context: staticContext(datasets, '') }),
    );
    expect(written).toEqual(GBFS_FILES.slice(1).map((file) => `${FEED}/${file}`));
    expect(paths).toEqual(written);
    expect(warnings).toContainEqual(expect.stringMatching(/^gbfs\/citybike\/gbfs\.json is left out: .*--base-url/));
  });
});
