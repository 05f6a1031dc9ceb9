import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, realpath } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasets } from '../../../datasets/index.ts';
import { buildStatic } from '../../../scripts/static/build-static.ts';
import { INDEX } from '../../../core/published-tree.ts';
import { staticContext } from '../../../scripts/static/static-context.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';
import { expectTreeAnswersAsServer, readJson } from '../../fixtures/tree-parity.ts';
import { tempDir, tinyDataDir } from '../../fixtures/tiny.ts';

/** Every file under a directory, relative, with `/`. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'));
}

/** Strings in a JSON value that are links into the tree (fragments dropped; URI templates are not links). */
function linksIn(value: unknown, found: string[] = []): string[] {
  if (typeof value === 'string') {
    const link = value.split('#')[0]!;
    if (link.startsWith('/') && !link.includes('{') && /(\.(json|jsonld|atom|parquet|csv\.gz|sql|conf)|\/_headers)$/.test(link)) found.push(link);
  } else if (Array.isArray(value)) value.forEach((item) => linksIn(item, found));
  else if (value && typeof value === 'object') Object.values(value).forEach((item) => linksIn(item, found));
  return found;
}

describe('the static tree of the tiny city', () => {
  let out: string;
  let tree: string;
  let server: TestServer;

  beforeAll(async () => {
    out = join(await tempDir('static'), 'dist');
    await buildStatic({ dataDir: tinyDataDir(), out, datasets });
    tree = await realpath(out);
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it('answers, file by file, what the server answers for the request each file stands for', async () => {
    // Every page of each endpoint's listing, and some files between of each, every kind of file,
    // including the ends of series and pages.
    expect(await expectTreeAnswersAsServer(tree, server, staticContext(datasets, ''))).toBeGreaterThan(90);
  });

  it('has a file for every endpoint of every data set, the ones that take ids included', async () => {
    const index = await readJson(tree, INDEX);
    for (const dataset of datasets) {
      const described = index.datasets.find((d: { name: string }) => d.name === dataset.name);
      for (const endpoint of dataset.endpoints) {
        const entry = described.endpoints.find((e: { path: string }) => e.path === endpoint.fullPath);
        expect(entry?.files, endpoint.fullPath).toBeGreaterThan(0);
      }
    }
  });

  it('reaches every file by following links from the index, and no link is broken', async () => {
    const seen = new Set<string>([`/${INDEX}`]);
    const queue = [`/${INDEX}`];
    const broken: string[] = [];
    while (queue.length) {
      const url = queue.pop()!;
      const path = join(tree, decodeURIComponent(url));
      if (!existsSync(path)) {
        broken.push(url);
        continue;
      }
      if (!url.endsWith('.json') && !url.endsWith('.jsonld')) continue;
      for (const link of linksIn(JSON.parse(await readFile(path, 'utf8')))) {
        if (!seen.has(link)) {
          seen.add(link);
          queue.push(link);
        }
      }
    }
    expect(broken).toEqual([]);
    const reached = new Set([...seen].map((url) => decodeURIComponent(url).slice(1)));
    // Every file but the compressed variants of JSON files, which are the same files.
    const published = (await filesUnder(tree)).filter((path) => !/\.(json|jsonld|atom)\.(gz|br)$/.test(path));
    expect(published).toEqual(
      expect.arrayContaining([
        'nginx.conf',
        '_headers',
        'downloads/odsnap.sql',
        'datapackage.json',
        'api/public/changes/index.json',
        'api/public/rcn/changes.atom',
      ]),
    );
    expect(published.filter((path) => !reached.has(path))).toEqual([]);
  });

  it('keeps gzip and brotli variants beside every JSON, JSON-LD and Atom file, with the same content', async () => {
    const files = (await filesUnder(tree)).filter((path) => /\.(json|jsonld|atom)$/.test(path));
    expect(files.length).toBeGreaterThan(500);
    expect(files).toEqual(expect.arrayContaining(['downloads/dcat.jsonld', 'api/public/rcn/changes.atom']));
    for (const path of files) {
      const plain = await readFile(join(tree, path));
      expect(gunzipSync(await readFile(join(tree, `${path}.gz`))).equals(plain), `${path}.gz`).toBe(true);
      expect(brotliDecompressSync(await readFile(join(tree, `${path}.br`))).equals(plain), `${path}.br`).toBe(true);
    }
  });

  it('publishes every Parquet file of the snapshot, catalogued with rows, bytes, sha256 and time range', async () => {
    const catalogue = await readJson(tree, '/downloads/catalogue.json');
    const manifest = JSON.parse(await readFile(join(await realpath(join(tinyDataDir(), 'current')), 'manifest.json'), 'utf8'));
    for (const table of catalogue.tables) {
      const files = manifest.datasets[table.dataset].tables[table.table].files;
      expect(table.files.map((f: { sha256: string }) => f.sha256)).toEqual(files.map((f: { sha256: string }) => f.sha256));
      for (const [i, file] of table.files.entries()) {
        expect(file).toMatchObject({ rows: files[i].rows, bytes: files[i].bytes, partition: files[i].partition, min: files[i].min, max: files[i].max });
        expect((await readFile(join(tree, file.url))).length).toBe(file.bytes);
      }
    }
    expect(catalogue.licence.id).toBe('CC-BY-4.0');
    const catalogued = catalogue.tables.flatMap((t: { files: { url: string; bytes: number; sha256: string }[] }) => t.files);

    // Frictionless reads a resource's several paths as one file cut in parts; a Parquet file is whole, so each is a resource, and so is its CSV twin.
    const datapackage = await readJson(tree, '/datapackage.json');
    expect(datapackage.licenses[0].name).toBe('CC-BY-4.0');
    type Described = { url: string; bytes: number; sha256: string; csv: { url: string; bytes: number; sha256: string } };
    expect(datapackage.resources.map((r: { path: unknown; bytes: number; hash: string }) => [r.path, r.bytes, r.hash])).toEqual(
      catalogued.flatMap((f: Described) => [f, f.csv].map((file) => [file.url.slice(1), file.bytes, `sha256:${file.sha256}`])),
    );
    for (const file of catalogued.map((f: Described) => f.csv)) {
      const bytes = await readFile(join(tree, file.url));
      expect(bytes.length, file.url).toBe(file.bytes);
      expect(createHash('sha256').update(bytes).digest('hex'), file.url).toBe(file.sha256);
    }
    const names = datapackage.resources.map((r: { name: string }) => r.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[-a-z0-9._/]+$/);
    expect(datapackage.resources.find((r: { name: string }) => r.name === 'rcn-transactions-year-2024')).toBeDefined();
    // Built without the site, and linked from the root: there is no home page to name.
    expect(datapackage.homepage).toBeUndefined();

    // DCAT-AP: a catalogue has a publisher; checksums, media types and rights are nodes, not strings.
    const dcat = await readJson(tree, '/downloads/dcat.jsonld');
    expect(dcat['@type']).toBe('dcat:Catalog');
    expect(dcat['dct:publisher']['foaf:name']).toBe('odsnap (synthetic sample city)');
    expect(dcat['dct:license']['@id']).toBe('https://creativecommons.org/licenses/by/4.0/');
    expect(dcat['dct:rights']['@type']).toBe('dct:RightsStatement');
    expect(dcat['dcat:dataset']).toHaveLength(datasets.length);
    const distributions = dcat['dcat:dataset'].flatMap((d: { 'dcat:distribution': unknown[] }) => d['dcat:distribution']);
    const parquet = distributions.filter((d: { 'dcat:mediaType'?: { '@id': string } }) => d['dcat:mediaType']?.['@id'].endsWith('parquet'));
    expect(parquet).toHaveLength(catalogued.length);
    for (const distribution of parquet) {
      expect(distribution['dcat:mediaType']).toEqual({ '@id': 'https://www.iana.org/assignments/media-types/application/vnd.apache.parquet' });
      expect(distribution['spdx:checksum']['spdx:algorithm']).toEqual({ '@id': 'spdx:checksumAlgorithm_sha256' });
    }
    expect(parquet.map((d: { 'spdx:checksum': { 'spdx:checksumValue': { '@value': string } } }) => d['spdx:checksum']['spdx:checksumValue']['@value'])).toEqual(
      catalogued.map((f: { sha256: string }) => f.sha256),
    );
  });

  it("publishes the rows of every data set's charts and map layers, as their SQL gives them", async () => {
    const index = await readJson(tree, `/${INDEX}`);
    const sql = async (query: string) => (await server.json(`/api/sql?q=${encodeURIComponent(query)}&format=json`)).rows as Record<string, unknown>[];
    for (const dataset of datasets) {
      const figures = await readJson(tree, index.datasets.find((d: { name: string }) => d.name === dataset.name).figures);
      expect(figures.charts.map((c: { name: string }) => c.name)).toEqual(dataset.charts.map((c) => c.name));
      for (const chart of figures.charts) expect(chart.rows.length, `${dataset.name}/${chart.name}`).toBeGreaterThan(0);
      expect(figures.map.map((l: { name: string }) => l.name)).toEqual(dataset.map.map((l) => l.name));
    }
    // Checked against the server's SQL: every ride on some day, every counted bicycle on some day, every counter on the map.
    const citybike = await readJson(tree, '/api/public/figures/citybike.json');
    const ridesPerDay = citybike.charts.find((c: { name: string }) => c.name === 'rides-per-day');
    const [rides] = await sql('SELECT count(*) AS n FROM citybike_rides');
    expect(ridesPerDay.rows.reduce((n: number, row: { y: number }) => n + row.y, 0)).toBe(Number(rides!.n));
    const counters = await readJson(tree, '/api/public/figures/bike-counter.json');
    const [counted] = await sql('SELECT sum(value) AS n FROM bike_counter_readings');
    expect(counters.charts[0].rows.reduce((n: number, row: { y: number }) => n + row.y, 0)).toBe(Number(counted!.n));
    const [places] = await sql('SELECT count(*) AS n FROM bike_counter_counters');
    expect(counters.map[0].places).toHaveLength(Number(places!.n));
    const air = await readJson(tree, '/api/public/figures/air-quality.json');
    expect(air.charts[0].bands.length).toBeGreaterThan(0);
    expect(air.charts[0].bands.every((band: { color: string }) => /^#[0-9a-f]{6}$/i.test(band.color))).toBe(true);
  });
});
