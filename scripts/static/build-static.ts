import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { Endpoint } from '../../datasets/vocabulary/endpoint.ts';
import { inTurn, openDatabase, type Database } from '../../core/db/duckdb.ts';
import { paceHeap } from '../../core/heap.ts';
import { markReading } from '../../core/snapshot/readers.ts';
import { assertShape, createViews, openSnapshot } from '../../core/snapshot/read.ts';
import { sourceHash } from '../../core/source-hash.ts';
import { writeDownloads } from './downloads/index.ts';
import { makeCsvFiles, type CsvFiles } from './downloads/csv-files.ts';
import { publisherOf, type Publisher } from './downloads/dcat.ts';
import { figuresOf, type DatasetFigures } from './figures.ts';
import { HEADERS_FILE, headersFile, NGINX_SNIPPET, nginxSnippet } from './hosting.ts';
import { readSiteFile, siteFiles, startSiteBuild, treeIsReady } from './site.ts';
import { SnapshotPrints } from './snapshot-prints.ts';
import { SnapshotRows } from './snapshot-rows.ts';
import { kindOf } from '../../datasets/answers/index.ts';
import type { Defaults } from '../../datasets/answers/static-files.ts';
import { filePath, isPaged, layoutAbout, patternsOf } from '../../datasets/answers/tree.ts';
import { envelopeFor } from '../../datasets/answers/envelope.ts';
import { rangeRuleOf } from '../../datasets/answers/time-range.ts';
import { stringify } from '../../datasets/vocabulary/written.ts';
import { Listing } from './listing.ts';
import { staticContext } from './static-context.ts';
import { pullsBack, writeChanges } from './changes.ts';
import { CATALOGUE, CHANGES_INDEX, DATAPACKAGE, DCAT, DUCKDB_SCRIPT, figuresPath, INDEX, OPENAPI } from '../../core/published-tree.ts';
import { TreeOutput, type TreeCounts } from './tree-output.ts';
import { lockOutput } from './build-lock.ts';
import { treesDir } from './tree-state.ts';

/**
 * `odsnap build`: the static tree of the current snapshot. For every endpoint, every file (see
 * tree.ts for the layout) and a listing of them; the entry point `/api/public/index.json`; the
 * downloads; the hosting configuration. Written into the tree not in use, then swapped in.
 */

/** Site files served compressed when the client takes it. */
const COMPRESSIBLE = /\.(html|css|js|mjs|svg|json|xml|txt|wasm)$/;

export interface BuildOptions {
  readonly dataDir: string;
  readonly out: string;
  readonly datasets: readonly Dataset[];
  /** Prefix of links in the tree: '' for root-relative links, or e.g. https://cdn.example.org/odsnap. */
  readonly base?: string;
  /** Render every file, taking nothing of the tree in use as unchanged. */
  readonly full?: boolean;
  /** Most rows of series months read in one scan (see the series kind's files); 0 reads each series on its own. */
  readonly seriesInOneScan?: number;
  /** Fewest rows for which a stream reads repeated texts as ENUMs (see SnapshotRows.stream); 0 in every stream. */
  readonly repeatedTextsFrom?: number;
  /** Build the site (Astro, see site.ts) into the tree too. */
  readonly site?: boolean;
  /** The site maps' raster tiles: a URL template, or none (the default) for maps drawn as SVG alone (see core/base-map.ts). */
  readonly tiles?: string;
  /** Who publishes the data, for the DCAT-AP record (default: the upstream the snapshot was pulled from). */
  readonly publisher?: Partial<Publisher>;
  readonly onProgress?: (event: { endpoint: string; files: number }) => void;
  readonly onStep?: (text: string) => void;
}

export interface BuildResult extends TreeCounts {
  readonly snapshot: string;
  readonly tree: string;
  readonly seconds: number;
  /** What the publisher of the tree should know (e.g. that its DCAT-AP IRIs are relative). */
  readonly warnings: readonly string[];
  /** Files left out of the tree, their path values being no possible file name (see fileNameOf). */
  readonly leftOut: number;
}

export async function buildStatic(options: BuildOptions): Promise<BuildResult> {
  const unlock = await lockOutput(options.out);
  try {
    return await buildLocked(options);
  } finally {
    await unlock();
  }
}

async function buildLocked(options: BuildOptions): Promise<BuildResult> {
  const started = Date.now();
  const base = (options.base ?? '').replace(/\/+$/, '');
  const snapshot = await openSnapshot(options.dataDir);
  assertShape(snapshot, options.datasets);
  const unmark = markReading(options.dataDir, snapshot.id);
  const db = await openDatabase({ threads: 2, memoryLimit: '1GB', spillDir: snapshot.cacheDir });
  const stopPacing = paceHeap();
  // The site is bundled while the tree is written; its pages wait for the tree (see site.ts).
  const siteDir = join(snapshot.cacheDir, `site-${process.pid}`);
  const siteReady = `${siteDir}.ready`;
  let site: ReturnType<typeof startSiteBuild> | undefined;
  let opened: TreeOutput | undefined;
  let figuresDb: Database | undefined;
  let printsDb: Database | undefined;
  let csvDb: Database | undefined;
  let csvFiles: Promise<CsvFiles> | undefined;
  let prints: SnapshotPrints | undefined;
  let figures = new Map<Dataset, Promise<DatasetFigures>>();
  // Ends the work read ahead when the build fails: it is not waited for.
  const failing = new AbortController();
  try {
    // Charts and map layers are SQL over whole tables (see figures.ts), worked out on a connection
    // of their own while the tree is read and written: a rebuild leaves DuckDB idle most of the time.
    await createViews(db, snapshot, options.datasets);
    const figuresOn = (figuresDb = await db.connect());
    figures = inTurn(options.datasets, (dataset) => figuresOf(figuresOn, dataset), failing.signal);
    // The downloads' CSV twins too, on a connection of their own (see csv-files.ts).
    const csvOn = (csvDb = await db.connect());
    const csvStarted = Date.now();
    let csvMade = 0;
    csvFiles = makeCsvFiles(csvOn, snapshot, options.datasets, join(treesDir(options.out), 'csv'), { fresh: options.full, signal: failing.signal, onFile: () => csvMade++ });
    // Awaited with the downloads; the rejection handler keeps a failure before then from counting as unhandled.
    void csvFiles.then(() => options.onStep?.(`CSV twins: ${csvMade} made from new Parquet files in ${((Date.now() - csvStarted) / 1000).toFixed(1)} s, the rest kept from earlier builds`), () => {});
    // Group prints of Parquet files, by their sha256, beside the trees; --full reads them all again.
    const rows = new SnapshotRows(db, snapshot, options.repeatedTextsFrom);
    prints = new SnapshotPrints(db, snapshot, options.full ? undefined : join(treesDir(options.out), 'prints'));
    // Row prints too are read ahead, the first of them while the trees' states are read.
    printsDb = await db.connect();
    // What the upstream defaults to and adds to its envelopes, by endpoint: the tree answers as it did.
    const upstream = (endpoint: Endpoint) => snapshot.manifest.endpoints?.[endpoint.fullPath];
    const defaultsOf = (endpoint: Endpoint) => upstream(endpoint)?.defaults ?? {};
    prints.readAhead(printsDb, options.datasets.flatMap((dataset) => dataset.endpoints.flatMap((endpoint) => {
      const wanted = kindOf(endpoint.answer).tree.prints?.(endpoint.answer, defaultsOf(endpoint));
      return wanted ? [{ dataset, prints: wanted }] : [];
    })), failing.signal);
    const output = await TreeOutput.open(options.out, await renderKey(base, snapshot.manifest.endpoints), { fresh: options.full });
    opened = output;
    await rm(siteReady, { force: true });
    if (options.site) site = startSiteBuild({ outDir: siteDir, tree: output.dir, base, ready: siteReady, tiles: options.tiles });
    const context = staticContext(options.datasets, base, defaultsOf);
    const described = [];
    /** Files left out, each with why (a path value no file name can stand for). */
    const leftOut: string[] = [];
    for (const dataset of options.datasets) {
      const endpoints = [];
      for (const endpoint of dataset.endpoints) {
        const listing = new Listing(dataset, endpoint, base, output, defaultsOf(endpoint));
        const source = {
          dataset,
          endpoint,
          rows,
          prints,
          context,
          previousInput: (path: string, segment?: string) => output.previousInput(path, segment),
          previousSegment: (key: string) => output.previousSegment(key),
          seriesInOneScan: options.seriesInOneScan,
          defaults: defaultsOf(endpoint),
          range: rangeRuleOf(snapshot.manifest, endpoint.fullPath),
          envelope: envelopeFor(upstream(endpoint), context),
          leftOut: (reason: string) => {
            leftOut.push(`${endpoint.fullPath}: ${reason}`);
          },
        };
        let files = 0;
        const progress = () => options.onProgress?.({ endpoint: endpoint.fullPath, files });
        for await (const file of kindOf(endpoint.answer).tree.files(source, endpoint.answer)) {
          switch (file.type) {
            case 'segments':
              // Segments are listed whole, when the endpoint's files are all there (see Listing).
              for (const segment of file.segments) {
                if (segment.carried) await output.carrySegment(segment.key, segment.print);
                else output.openSegment(segment.key, segment.print);
                files += segment.carried ? segment.files : 0;
              }
              listing.addSegments(file.segments, file.places);
              progress();
              continue;
            case 'carried':
              // Most files of a rebuild: awaited only when the writers or the listing make them wait.
              for (const { path, input, segment } of file.files) {
                const carrying = output.carry(path, input, segment);
                if (carrying) await carrying;
                const listed = segment === undefined ? listing.add(path) : undefined;
                if (listed) await listed;
                files++;
                progress();
              }
              continue;
            case 'new-ending':
              await output.replaceEnding(file.path, file.ending, file.input);
              break;
            case 'appended':
              await output.extend(file.path, file.extend, file.input);
              break;
            case 'rendered':
              await output.write(file.path, stringify(file.body), { input: file.input, ending: file.endsWith, segment: file.segment });
              if (file.segment !== undefined) {
                files++;
                progress();
                continue;
              }
          }
          await listing.add(file.path);
          files++;
          progress();
        }
        await listing.finish();
        options.onStep?.(`${endpoint.fullPath}: ${listing.count.toLocaleString('en')} files`);
        endpoints.push(describeEndpoint(endpoint, base, listing, defaultsOf(endpoint)));
      }
      await output.write(figuresPath(dataset.name), JSON.stringify(await figures.get(dataset)));
      described.push({ name: dataset.name, title: dataset.title, description: dataset.description, endpoints, figures: `${base}/${figuresPath(dataset.name)}` });
    }
    const pulls = await pullsBack(options.dataDir, snapshot);
    await writeChanges(output, pulls, options.datasets, context, base);
    options.onStep?.(`changes: ${pulls.length} pull${pulls.length === 1 ? '' : 's'} published`);

    const downloads = await writeDownloads({
      snapshot,
      datasets: options.datasets,
      output,
      base,
      csv: await csvFiles,
      publisher: publisherOf(snapshot.manifest.source, options.publisher),
      site: options.site,
    });
    options.onStep?.(`downloads: ${downloads.files} Parquet files and their CSV twins`);

    const { manifest } = snapshot;
    const index = {
      snapshot: { id: manifest.id, createdAt: manifest.createdAt, source: manifest.source },
      licence: manifest.licence,
      about:
        'Every file answers one v1 request with the body the v1 server gives, links pointing into this tree. A file is the request path with .json; ' +
        `${layoutAbout(options.datasets.flatMap((d) => d.endpoints.map((endpoint) => ({ endpoint, defaults: defaultsOf(endpoint) })))).join('; ')}. Each endpoint lists its files.`,
      datasets: described,
      downloads: { catalogue: `${base}/${CATALOGUE}`, datapackage: `${base}/${DATAPACKAGE}`, dcat: `${base}/${DCAT}`, duckdb: `${base}/${DUCKDB_SCRIPT}` },
      changes: `${base}/${CHANGES_INDEX}`,
      // The site and the OpenAPI document it writes, when the tree holds them.
      ...(options.site ? { site: `${base}/`, openapi: `${base}/${OPENAPI}` } : {}),
      hosting: { nginx: `${base}/${NGINX_SNIPPET}`, headers: `${base}/${HEADERS_FILE}` },
      // Records whose files could not be written: their path values are no possible file name.
      ...(leftOut.length ? { leftOut: { files: leftOut.length, reasons: leftOut.slice(0, 100) } } : {}),
    };
    await output.write(INDEX, JSON.stringify(index, null, 2));
    await output.write(NGINX_SNIPPET, nginxSnippet(), { compress: false });
    await output.write(HEADERS_FILE, headersFile(), { compress: false });
    if (site) {
      // The site's docs link to the tree's real files: its pages are made from the tree being written.
      await output.flush();
      await treeIsReady(siteReady);
      const seconds = await site.done;
      const files = await siteFiles(siteDir);
      for (const path of files) await output.write(path, await readSiteFile(siteDir, path), { compress: COMPRESSIBLE.test(path) });
      options.onStep?.(`site: ${files.length} files, built beside the tree in ${seconds.toFixed(1)} s`);
    }
    await output.publish(manifest.id);
    await prints.prunePrintsCache();
    const unnamed = leftOut.length ? [`${leftOut.length} file${leftOut.length === 1 ? '' : 's'} left out, their path values being no possible file name: ${leftOut.slice(0, 3).join('; ')}${leftOut.length > 3 ? '; …' : ''}`] : [];
    return { ...output.counts, snapshot: manifest.id, tree: output.dir, seconds: (Date.now() - started) / 1000, warnings: [...downloads.warnings, ...unnamed], leftOut: leftOut.length };
  } catch (error) {
    failing.abort();
    for (const extra of [figuresDb, printsDb, csvDb]) extra?.connection.interrupt();
    throw error;
  } finally {
    site?.stop();
    await Promise.allSettled([site?.done]);
    await rm(siteDir, { recursive: true, force: true });
    await rm(siteReady, { force: true });
    await opened?.close();
    await Promise.allSettled([...figures.values(), prints?.settle(), csvFiles]);
    stopPacing();
    figuresDb?.close();
    printsDb?.close();
    csvDb?.close();
    db.close();
    unmark();
  }
}

/**
 * What a file's content depends on besides its input: the links' base and the code that renders
 * (the data-set declarations, this builder, and how columns are read from Parquet into the values
 * the declarations render), so a changed renderer never leaves stale files.
 */
const renderKey = (base: string, upstream: unknown) =>
  sourceHash([new URL('../../datasets', import.meta.url), new URL('.', import.meta.url), new URL('../../core/db/columns.ts', import.meta.url)], `${base}\n${JSON.stringify(upstream ?? {})}`);

function describeEndpoint(endpoint: Endpoint, base: string, listing: Listing, defaults: Defaults) {
  const patterns = patternsOf(endpoint, defaults);
  return {
    path: endpoint.fullPath,
    summary: endpoint.summary,
    ...(endpoint.extension ? { extension: endpoint.extension } : {}),
    files: listing.count,
    pattern: `${base}${patterns.file}`,
    // Lists that are paged: their first file is the request with no query.
    ...(isPaged(endpoint, defaults) ? { first: `${base}/${filePath(endpoint, {}, undefined, defaults)}` } : {}),
    standsFor: patterns.request,
    listing: listing.url(1),
  };
}
