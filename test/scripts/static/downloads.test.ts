import { readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import jsonld from 'jsonld';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE, DCAT, DUCKDB_SCRIPT, INDEX, tableCataloguePath } from '../../../core/published-tree.ts';
import { csvSelectList } from '../../../core/db/csv.ts';
import { quoteString } from '../../../core/db/duckdb.ts';
import { datasets } from '../../../datasets/index.ts';
import { dataThemes } from '../../../datasets/vocabulary/dataset.ts';
import { buildStatic, type BuildResult } from '../../../scripts/static/build-static.ts';
import { staticTree } from '../../../server/static-tree.ts';
import { checkDataPackage } from '../../fixtures/frictionless.ts';
import { python, runPythonIn } from '../../fixtures/python.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';
import { tempDir, tinyDataDir, withDatabase } from '../../fixtures/tiny.ts';
import { readJson } from '../../fixtures/tree-parity.ts';

/**
 * The downloads' descriptions read by the tools made for them: the DCAT-AP record as RDF by a
 * JSON-LD library, the Data Package's CSV resources by the Frictionless reference library, the
 * DuckDB script by DuckDB. One tree is built with an absolute base and served on loopback, as on
 * a CDN; another with root-relative links, as `npm start` builds it.
 */

type Catalogue = {
  duckdb: { script: string; command: string; remote: boolean };
  tables: {
    dataset: string;
    table: string;
    sqlName: string;
    rows: number;
    catalogue: string;
    columns: { name: string; type: string }[];
    files: { url: string; rows: number; min: string | null; max: string | null; csv: { url: string } }[];
  }[];
};
type Quad = { subject: { termType: string; value: string }; predicate: { value: string }; object: { termType: string; value: string; language?: string } };

const DCAT_NS = 'http://www.w3.org/ns/dcat#';
const DCT = 'http://purl.org/dc/terms/';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const VCARD = 'http://www.w3.org/2006/vcard/ns#';
const FOAF = 'http://xmlns.com/foaf/0.1/';

/** The RDF of a JSON-LD document, read with no base: what a harvester gets from the file alone. */
async function rdfOf(document: object) {
  const quads = (await jsonld.toRDF(document as jsonld.JsonLdDocument)) as unknown as Quad[];
  const objects = (subject: string, predicate: string) =>
    quads.filter((q) => q.subject.value === subject && q.predicate.value === predicate).map((q) => q.object);
  const ofType = (type: string) => quads.filter((q) => q.predicate.value === RDF_TYPE && q.object.value === type).map((q) => q.subject);
  return { quads, objects, ofType, one: (subject: string, predicate: string) => objects(subject, predicate)[0]?.value };
}

describe('the downloads described for the tools that read them', () => {
  let server: TestServer;
  let absolute: { tree: string; base: string; result: BuildResult; catalogue: Catalogue };
  let relative: { tree: string; result: BuildResult; catalogue: Catalogue };

  beforeAll(async () => {
    const dir = await tempDir('downloads');
    const served = staticTree(join(dir, 'absolute'));
    server = await startTestServer({ tree: served });
    const publisher = { name: 'City of Example, open data office', contact: 'mailto:opendata@example.org' };
    const absoluteResult = await buildStatic({ dataDir: tinyDataDir(), out: join(dir, 'absolute'), datasets, base: server.url, publisher });
    served.clear();
    const relativeResult = await buildStatic({ dataDir: tinyDataDir(), out: join(dir, 'relative'), datasets });
    const absoluteTree = await realpath(join(dir, 'absolute'));
    const relativeTree = await realpath(join(dir, 'relative'));
    absolute = { tree: absoluteTree, base: server.url, result: absoluteResult, catalogue: await readJson(absoluteTree, `/${CATALOGUE}`) };
    relative = { tree: relativeTree, result: relativeResult, catalogue: await readJson(relativeTree, `/${CATALOGUE}`) };
  });
  afterAll(() => server?.close());

  it('gives DCAT-AP with absolute IRIs that an RDF reader takes whole: catalogue, data sets, distributions, and the recommended properties', async () => {
    const { base, tree, catalogue } = absolute;
    const rdf = await rdfOf(await readJson(tree, `/${DCAT}`));
    // Nothing is lost for want of a base: every IRI is absolute.
    for (const quad of rdf.quads)
      for (const term of [quad.subject, quad.object]) if (term.termType === 'NamedNode') expect(term.value).toMatch(/^(https?|mailto):/);

    expect(rdf.ofType(`${DCAT_NS}Catalog`).map((s) => s.value)).toEqual([`${base}/${DCAT}`]);
    const catalog = `${base}/${DCAT}`;
    expect(
      rdf
        .objects(catalog, `${DCT}title`)
        .map((o) => o.language)
        .sort(),
    ).toEqual(['en', 'pl']);
    expect(rdf.one(catalog, `${DCT}license`)).toBe('https://creativecommons.org/licenses/by/4.0/');

    const found = rdf
      .ofType(`${DCAT_NS}Dataset`)
      .map((s) => s.value)
      .sort();
    expect(found).toEqual(datasets.map((d) => `${base}/downloads/${d.name}`).sort());
    expect(
      rdf
        .objects(catalog, `${DCAT_NS}dataset`)
        .map((o) => o.value)
        .sort(),
    ).toEqual(found);
    for (const dataset of datasets) {
      const id = `${base}/downloads/${dataset.name}`;
      expect(
        rdf
          .objects(id, `${DCT}title`)
          .map((o) => o.value)
          .sort(),
        id,
      ).toEqual([dataset.title.en, dataset.title.pl].sort());
      expect(rdf.objects(id, `${DCT}description`), id).toHaveLength(2);
      // Recommended: publisher, contact point, keywords (in both languages) and EU data themes, from the declaration and the build.
      const publisher = rdf.one(id, `${DCT}publisher`)!;
      expect(rdf.one(publisher, RDF_TYPE)).toBe(`${FOAF}Agent`);
      expect(rdf.one(publisher, `${FOAF}name`)).toBe('City of Example, open data office');
      const contact = rdf.one(id, `${DCAT_NS}contactPoint`)!;
      expect(rdf.one(contact, RDF_TYPE)).toBe(`${VCARD}Organization`);
      expect(rdf.one(contact, `${VCARD}hasEmail`)).toBe('mailto:opendata@example.org');
      const keywords = rdf.objects(id, `${DCAT_NS}keyword`);
      expect(
        keywords
          .filter((k) => k.language === 'en')
          .map((k) => k.value)
          .sort(),
      ).toEqual([...dataset.keywords.en].sort());
      expect(keywords.filter((k) => k.language === 'pl').length).toBeGreaterThan(0);
      const themes = rdf.objects(id, `${DCAT_NS}theme`).map((o) => o.value);
      expect(themes.length).toBeGreaterThan(0);
      for (const theme of themes)
        expect(Object.keys(dataThemes).map((code) => `http://publications.europa.eu/resource/authority/data-theme/${code}`)).toContain(theme);
      expect(rdf.objects(id, `${DCT}temporal`).length, id).toBeLessThanOrEqual(1);

      // A distribution per Parquet file, per CSV file and for the static JSON; each reachable, typed and licensed.
      const files = catalogue.tables.filter((t) => t.dataset === dataset.name).flatMap((t) => t.files);
      const distributions = rdf.objects(id, `${DCAT_NS}distribution`).map((o) => o.value);
      expect(distributions).toHaveLength(1 + 2 * files.length);
      const downloads = distributions.flatMap((d) => rdf.objects(d, `${DCAT_NS}downloadURL`).map((o) => o.value)).sort();
      expect(downloads).toEqual(files.flatMap((file) => [file.url, file.csv.url]).sort());
      for (const distribution of distributions) {
        expect(rdf.one(distribution, RDF_TYPE)).toBe(`${DCAT_NS}Distribution`);
        expect(rdf.one(distribution, `${DCAT_NS}accessURL`)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
        expect(rdf.one(distribution, `${DCAT_NS}mediaType`)).toMatch(/^https:\/\/www\.iana\.org\/assignments\/media-types\//);
        expect(rdf.one(distribution, `${DCT}format`)).toMatch(/^http:\/\/publications\.europa\.eu\/resource\/authority\/file-type\/(PARQUET|CSV|JSON)$/);
        expect(rdf.one(distribution, `${DCT}license`)).toBe('https://creativecommons.org/licenses/by/4.0/');
      }
    }
    // The download URLs answer.
    const some = catalogue.tables[0]!.files[0]!;
    for (const url of [some.url, some.csv.url, `${base}/${DUCKDB_SCRIPT}`]) expect((await fetch(url)).status, url).toBe(200);
  });

  it('gives as a data set’s time range its records’ dates, leaving out the captures of live views (stamped by the pull’s clock), as the site does', async () => {
    const { base, catalogue } = absolute;
    const rdf = await rdfOf(await readJson(absolute.tree, `/${DCAT}`));
    const DCAT_END = `${DCAT_NS}endDate`;
    let withLive = 0;
    for (const dataset of datasets) {
      const tables = catalogue.tables.filter((t) => t.dataset === dataset.name);
      const isLive = (t: (typeof tables)[number]) => dataset.tables[t.table]?.liveCaptures === true;
      const maxOf = (some: typeof tables) =>
        some
          .flatMap((t) => t.files.flatMap((f) => [f.min, f.max]))
          .filter((v): v is string => !!v)
          .sort()
          .at(-1);
      const records = maxOf(tables.filter((t) => !isLive(t)));
      const live = maxOf(tables.filter(isLive));
      const temporal = rdf.one(`${base}/downloads/${dataset.name}`, `${DCT}temporal`);
      expect(temporal && rdf.one(temporal, DCAT_END), dataset.name).toBe(records);
      if (live && records && live > records) withLive++;
    }
    // The sample has data sets whose live captures run past their records: the case this is about.
    expect(withLive).toBeGreaterThan(0);
  });

  it('warns when the tree has no absolute base, whose DCAT-AP record then loses its catalogue without the URL it is read from', async () => {
    expect(absolute.result.warnings).toEqual([]);
    // Without an absolute base, the GBFS discovery file is left out too (see the feeds' tests).
    expect(relative.result.warnings).toContainEqual(expect.stringMatching(/dcat\.jsonld.*root-relative.*--base-url/));
    const rdf = await rdfOf(await readJson(relative.tree, `/${DCAT}`));
    expect(rdf.ofType(`${DCAT_NS}Catalog`)).toEqual([]);
    // The default publisher of the sample city, when none is given.
    expect(rdf.quads.some((q) => q.predicate.value === `${FOAF}name` && q.object.value === 'odsnap (synthetic sample city)')).toBe(true);
  });

  it('gives every table as gzip CSV whose rows the Frictionless reference library reads with the Data Package’s schema', async () => {
    const { tree, catalogue } = relative;
    const check = await checkDataPackage(tree, await tempDir('frictionless'));
    expect(check.descriptor).toEqual([]);
    expect(check.csv.filter((resource) => resource.errors.length)).toEqual([]);
    const rows = catalogue.tables.flatMap((t) => t.files.map((f) => f.rows));
    expect(check.csv.map((resource) => resource.rows)).toEqual(rows);
    expect(rows.reduce((a, b) => a + b, 0)).toBeGreaterThan(10_000);
  });

  it('has a schema the library holds CSV to: an instant as DuckDB writes it by default is refused', async () => {
    const { tree } = relative;
    // The first instant of the readings, rewritten as DuckDB's CSV writer would give it.
    const readings = 'downloads/csv/bike-counter/readings/';
    const check = await checkDataPackage(tree, await tempDir('frictionless-bad'), (path, text) =>
      path.startsWith(readings) ? text.replace(/(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)\.\d{3}Z/, '$1 $2+00') : text,
    );
    const refused = check.csv.filter((resource) => resource.errors.length).map((resource) => resource.name);
    expect(refused.length).toBeGreaterThan(0);
    for (const name of refused) expect(name).toMatch(/^bike-counter-readings-/);
  });

  it('gives in each CSV file exactly the rows of its Parquet file', async () => {
    const { tree, catalogue } = relative;
    await withDatabase(async (db) => {
      for (const table of catalogue.tables) {
        const asText = table.columns.map((c) => `CAST(${JSON.stringify(c.name)} AS VARCHAR)`).join(', ');
        for (const file of table.files) {
          const parquet = `SELECT ${asText} FROM (SELECT ${csvSelectList(table.columns)} FROM read_parquet(${quoteString(join(tree, file.url))}))`;
          const csv = `SELECT ${asText} FROM read_csv(${quoteString(join(tree, file.csv.url))}, all_varchar = true, header = true)`;
          const [differ] = await db.rows<{ n: bigint }>(
            `SELECT (SELECT count(*) FROM (${parquet} EXCEPT ALL ${csv})) + (SELECT count(*) FROM (${csv} EXCEPT ALL ${parquet})) AS n`,
          );
          expect(Number(differ!.n), file.csv.url).toBe(0);
        }
      }
    });
  });

  it('gives each table a catalogue of its own, linked from its entry: the whole one with that table alone, compressed alike, its files found from it as from the whole one', async () => {
    for (const { tree, base, catalogue } of [absolute, { ...relative, base: '' }]) {
      const whole = await readJson(tree, `/${CATALOGUE}`);
      expect(catalogue.tables.length).toBe(datasets.flatMap((d) => Object.keys(d.tables)).length);
      for (const table of catalogue.tables) {
        const path = tableCataloguePath(table.dataset, table.table);
        expect(table.catalogue).toBe(`${base}/${path}`);
        const plain = await readFile(join(tree, path));
        expect(JSON.parse(plain.toString()), path).toEqual({ ...whole, tables: [table] });
        expect(gunzipSync(await readFile(join(tree, `${path}.gz`))).equals(plain), `${path}.gz`).toBe(true);
        expect(brotliDecompressSync(await readFile(join(tree, `${path}.br`))).equals(plain), `${path}.br`).toBe(true);
        // The page resolves file URLs against the catalogue's URL, now a folder deeper.
        const served = base || 'https://example.org';
        for (const file of table.files)
          for (const url of [file.url, file.csv.url]) expect(new URL(url, `${served}/${path}`).href).toBe(new URL(url, `${served}/${CATALOGUE}`).href);
      }
    }
    // Served, as a browser reads it: the table's catalogue, then its first file by the URL it gives.
    const own = (await (await fetch(absolute.catalogue.tables[0]!.catalogue)).json()) as Catalogue;
    const file = own.tables[0]!.files[0]!;
    expect((await fetch(new URL(file.url, absolute.catalogue.tables[0]!.catalogue))).status).toBe(200);
  });

  it('links every kind of file from the index: descriptions, the DuckDB script, hosting, figures', async () => {
    const index = await readJson(absolute.tree, `/${INDEX}`);
    expect(index.downloads).toEqual({
      catalogue: `${absolute.base}/${CATALOGUE}`,
      datapackage: `${absolute.base}/datapackage.json`,
      dcat: `${absolute.base}/${DCAT}`,
      duckdb: `${absolute.base}/${DUCKDB_SCRIPT}`,
    });
    expect(index.hosting).toEqual({ nginx: `${absolute.base}/nginx.conf`, headers: `${absolute.base}/_headers` });
    for (const dataset of index.datasets) expect((await fetch(dataset.figures)).status).toBe(200);
  });

  describe.skipIf(!python && !process.env.CI)('the DuckDB script', () => {
    const expected = (catalogue: Catalogue) => Object.fromEntries(catalogue.tables.map((t) => [t.sqlName, t.rows]));
    const counted = (views: Record<string, { rows: number }>) => Object.fromEntries(Object.entries(views).map(([name, view]) => [name, view.rows]));

    it('gives a view per table, read over HTTP from the tree’s URLs, from anywhere', async () => {
      const { catalogue } = absolute;
      expect(catalogue.duckdb).toEqual({
        script: `${absolute.base}/${DUCKDB_SCRIPT}`,
        command: `curl -sO ${absolute.base}/${DUCKDB_SCRIPT} && duckdb -init odsnap.sql`,
        remote: true,
      });
      const elsewhere = await tempDir('duckdb-anywhere');
      await download(catalogue.duckdb.script, join(elsewhere, 'odsnap.sql'));
      const views = await runPythonIn<Record<string, { rows: number; comment: string }>>(elsewhere, 'duckdb_script.py', 'odsnap.sql');
      expect(counted(views)).toEqual(expected(catalogue));
      expect(views.citybike_rides!.comment).toBe(datasets.find((d) => d.name === 'citybike')!.tables.rides!.doc.en);
    });

    it('gives a view per table over the files by path, in the directory of a tree with root-relative links', async () => {
      const { tree, catalogue } = relative;
      expect(catalogue.duckdb).toEqual({ script: `/${DUCKDB_SCRIPT}`, command: `duckdb -init ${DUCKDB_SCRIPT}`, remote: false });
      const views = await runPythonIn<Record<string, { rows: number }>>(tree, 'duckdb_script.py', DUCKDB_SCRIPT);
      expect(counted(views)).toEqual(expected(catalogue));
    });
  });
});

/** Saves a URL's body to a file, as `curl -sO` does. */
async function download(url: string, path: string): Promise<void> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url}: ${response.status}`);
  await writeFile(path, Buffer.from(await response.arrayBuffer()));
}
