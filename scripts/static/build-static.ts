import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import { sourceHash } from '../../core/source-hash.ts';
import { lockOutput } from './build-lock.ts';
import { startRun, type BuildRun } from './build-run.ts';
import { leftOutWarnings, writeFiles } from './build-files.ts';
import { addSite } from './build-site.ts';
import { connectionTo, openTables, readPrintsAhead } from './build-tables.ts';
import { publishChanges } from './changes.ts';
import { startColumnStatistics, startCsvTwins, writeDownloads } from './downloads/index.ts';
import type { Publisher } from './downloads/dcat.ts';
import { contactEmail, writeFeeds } from './feeds.ts';
import { startFigures, writeFigures } from './figures.ts';
import { staticContext } from './static-context.ts';
import { writeIndex } from './tree-index.ts';
import { writeStatus } from './tree-status.ts';
import { TreeOutput, type TreeCounts } from './tree-output.ts';

/**
 * `odsnap build`: the static tree of the current snapshot, in steps: the snapshot's tables; every
 * endpoint's files (see the kinds' files) and a listing of them; the changes of the last pulls; the
 * downloads and the tables' column statistics; the charts' and maps' figures; the data sets' feeds (GBFS); how fresh the data is (the
 * mirror's status); the entry point `/api/public/index.json` and the hosting configuration; the
 * site. Written into the tree not in use, then swapped in (published). Work that reads whole
 * tables (figures, CSV twins, column statistics, prints) and the site's bundling start first and go on while the
 * files are written; the step that needs their result waits for it.
 */

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
  /** Most rows of changed item buckets whose prints are held, to read only the rows that changed (see the item kind's files); 0 reads every item with its print. */
  readonly itemPrintsHeld?: number;
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
  /** What the tree leaves out by design, whatever the options (a feed's mapping): said, not warned of. */
  readonly notes: readonly string[];
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
  const { dataDir, out, full, datasets, onStep } = options;
  const base = (options.base ?? '').replace(/\/+$/, '');
  const run = startRun();
  try {
    // The snapshot's tables; what reads them whole starts at once, each on a connection of its own.
    const tables = await openTables(dataDir, datasets, run, options.repeatedTextsFrom);
    const figures = startFigures(await connectionTo(tables, run), datasets, run);
    const csv = startCsvTwins(await connectionTo(tables, run), tables.snapshot, datasets, { out, full }, run, onStep);
    const statistics = startColumnStatistics(await connectionTo(tables, run), tables.snapshot, datasets, { out, full }, run, onStep);
    const prints = readPrintsAhead(await connectionTo(tables, run), tables, datasets, { out, full }, run);
    const output = await openTree(out, base, tables.snapshot.manifest.endpoints, full, run);
    const context = staticContext(datasets, base, tables.defaultsOf);

    // Then the tree, step by step, each taking up what was started for it.
    const files = await writeFiles({
      datasets,
      tables,
      prints,
      output,
      base,
      context,
      seriesInOneScan: options.seriesInOneScan,
      itemPrintsHeld: options.itemPrintsHeld,
      onProgress: options.onProgress,
      onStep,
    });
    await publishChanges(output, { dataDir, snapshot: tables.snapshot, datasets, context, base, onStep });
    const downloads = await writeDownloads({
      snapshot: tables.snapshot,
      datasets,
      output,
      base,
      csv,
      statistics,
      publisher: options.publisher,
      site: options.site,
      onStep,
    });
    await writeFigures(output, figures);
    const feeds = await writeFeeds(output, {
      datasets,
      rows: tables.rows,
      manifest: tables.snapshot.manifest,
      base,
      context,
      contact: contactEmail(options.publisher?.contact),
    });
    await writeStatus(output, { dataDir, manifest: tables.snapshot.manifest });
    await writeIndex(output, {
      manifest: tables.snapshot.manifest,
      datasets,
      defaultsOf: tables.defaultsOf,
      files,
      feeds: feeds.paths,
      base,
      site: options.site,
    });
    // Nothing reads the tables past here: their memory goes before the site is built.
    await prints.settle();
    tables.close();
    if (options.site) await addSite(output, tables.snapshot.cacheDir, { base, tiles: options.tiles }, run, onStep);
    await output.publish(tables.snapshot.manifest.id);
    await prints.prunePrintsCache();

    const warnings = [...downloads.warnings, ...leftOutWarnings(files.leftOut), ...feeds.warnings];
    return {
      ...output.counts,
      snapshot: tables.snapshot.manifest.id,
      tree: output.dir,
      seconds: (Date.now() - started) / 1000,
      warnings,
      notes: feeds.notes,
      leftOut: files.leftOut.length,
    };
  } catch (error) {
    run.fail();
    throw error;
  } finally {
    await run.end();
  }
}

/** The tree not in use, opened to be written; closed when the build ends (and deleted unless published). */
async function openTree(out: string, base: string, upstream: unknown, full: boolean | undefined, run: BuildRun): Promise<TreeOutput> {
  const output = await TreeOutput.open(out, await renderKey(base, upstream), { fresh: full });
  run.atEnd(() => output.close());
  return output;
}

/**
 * What a file's content depends on besides its input: the links' base and the code that renders
 * (the data-set declarations, this builder, and how columns are read from Parquet into the values
 * the declarations render), so a changed renderer never leaves stale files.
 */
const renderKey = (base: string, upstream: unknown) =>
  sourceHash(
    [new URL('../../datasets', import.meta.url), new URL('.', import.meta.url), new URL('../../core/db/columns.ts', import.meta.url)],
    `${base}\n${JSON.stringify(upstream ?? {})}`,
  );
