import { join } from 'node:path';
import type { Snapshot } from '../../../core/snapshot/read.ts';
import { CATALOGUE, DATAPACKAGE, datasetPagePath, DCAT, DUCKDB_SCRIPT } from '../../../core/published-tree.ts';
import type { Database } from '../../../core/db/duckdb.ts';
import { counted } from '../../../core/progress.ts';
import type { Dataset } from '../../../datasets/vocabulary/dataset.ts';
import type { BuildRun } from '../build-run.ts';
import type { TreeOutput } from '../tree-output.ts';
import { treesDir } from '../tree-state.ts';
import { catalogueOf, tableCatalogues } from './catalogue.ts';
import { makeCsvFiles, type CsvFiles } from './csv-files.ts';
import { dataPackageOf } from './datapackage.ts';
import { dcatOf, publisherOf, type Publisher } from './dcat.ts';
import { absoluteBase, duckdbCommand, duckdbScript } from './duckdb-script.ts';
import { tableDownloads } from './files.ts';
import { describeTables, writeStatistics, type StatisticsOfTables } from './table-statistics.ts';

/**
 * The bulk downloads (see files.ts): every Parquet file of the snapshot and its CSV twin, each
 * table's column statistics, and four descriptions of them: odsnap's catalogue, a Frictionless
 * Data Package, a DCAT-AP record and a DuckDB script. All carry the snapshot's licence (CC BY 4.0)
 * and attribution.
 */

/**
 * Starts making the CSV twins on `db` (a connection of their own) while the tree is written: kept
 * beside the trees, they are made only of Parquet files no earlier build converted (see
 * csv-files.ts); `full` makes them all again.
 */
export function startCsvTwins(
  db: Database,
  snapshot: Snapshot,
  datasets: readonly Dataset[],
  tree: { out: string; full?: boolean },
  run: BuildRun,
  onStep?: (text: string) => void,
): Promise<CsvFiles> {
  return besideTheTree(
    (onMade) => makeCsvFiles(db, snapshot, datasets, join(treesDir(tree.out), 'csv'), { fresh: tree.full, signal: run.failing, onFile: onMade }),
    run,
    (made, seconds) => `CSV twins: ${made} made from new Parquet files in ${seconds} s`,
    onStep,
  );
}

/**
 * Starts working out every table's column statistics on `db` (a connection of their own) while
 * the tree is written: kept beside the trees, they are worked out only for tables whose files no
 * earlier build described (see table-statistics.ts); `full` works them all out again.
 */
export function startColumnStatistics(
  db: Database,
  snapshot: Snapshot,
  datasets: readonly Dataset[],
  tree: { out: string; full?: boolean },
  run: BuildRun,
  onStep?: (text: string) => void,
): Promise<StatisticsOfTables> {
  return besideTheTree(
    (onMade) => describeTables(db, snapshot, datasets, join(treesDir(tree.out), 'statistics'), { fresh: tree.full, signal: run.failing, onTable: onMade }),
    run,
    (made, seconds) => `column statistics: ${counted(made, 'table')} described in ${seconds} s`,
    onStep,
  );
}

/**
 * Work started beside the tree's writing and awaited with the downloads: waited for at the end of
 * a failed build, and said when done, with how many of its results earlier builds had kept.
 */
function besideTheTree<T extends { readonly size: number }>(
  start: (onMade: () => void) => Promise<T>,
  run: BuildRun,
  said: (made: number, seconds: string) => string,
  onStep?: (text: string) => void,
): Promise<T> {
  const started = Date.now();
  let made = 0;
  const work = start(() => made++);
  run.atEnd(() => Promise.allSettled([work]));
  // The rejection handler keeps a failure before the downloads await it from counting as unhandled.
  void work.then(
    (results) => {
      const kept = results.size - made;
      onStep?.(`${said(made, ((Date.now() - started) / 1000).toFixed(1))}${kept > 0 ? `, ${kept} kept from earlier builds` : ''}`);
    },
    () => {},
  );
  return work;
}

export interface DownloadsOptions {
  readonly snapshot: Snapshot;
  readonly datasets: readonly Dataset[];
  readonly output: TreeOutput;
  /** Prefix of absolute links ('' for root-relative ones). */
  readonly base: string;
  /** The CSV twins, by the sha256 of their Parquet files, once made (see startCsvTwins). */
  readonly csv: Promise<CsvFiles>;
  /** Every table's column statistics, once worked out (see startColumnStatistics). */
  readonly statistics: Promise<StatisticsOfTables>;
  /** Who publishes the data, for the DCAT-AP record (default: the upstream the snapshot was pulled from). */
  readonly publisher?: Partial<Publisher>;
  /** Whether the tree holds the site, whose pages the descriptions name. */
  readonly site?: boolean;
  readonly onStep?: (text: string) => void;
}

export interface DownloadsResult {
  /** Parquet files, each with its CSV twin. */
  readonly files: number;
  readonly bytes: number;
  /** What a reader of the descriptions should know, e.g. that their IRIs are relative. */
  readonly warnings: readonly string[];
}

/** The downloads step of a build. */
export async function writeDownloads({
  snapshot,
  datasets,
  output,
  base,
  publisher,
  site = false,
  onStep,
  ...made
}: DownloadsOptions): Promise<DownloadsResult> {
  const csv = await made.csv;
  const statistics = await made.statistics;
  const csvOf = (sha256: string) => {
    const made = csv.get(sha256);
    if (!made) throw new Error(`no CSV was made of the Parquet file with sha256 ${sha256}`);
    return made;
  };
  const tables = tableDownloads(snapshot, datasets, base, (file) => csvOf(file.sha256));
  let files = 0;
  let bytes = 0;
  for (const table of tables) {
    for (const file of table.files) {
      await output.link(file.path, join(snapshot.dir, file.source), file.sha256);
      await output.link(file.csv.path, csvOf(file.sha256).file, file.csv.sha256);
      files++;
      bytes += file.bytes + file.csv.bytes;
    }
  }

  await writeStatistics(output, snapshot, tables, statistics);

  // Pages and the package's home are named by URL: a tree linked from its root has none to give.
  const absolute = absoluteBase(base);
  const pages = site && absolute ? { home: `${base}/`, dataset: (name: string) => `${base}/${datasetPagePath(name)}` } : undefined;
  const catalogue = catalogueOf(snapshot, tables, { script: `${base}/${DUCKDB_SCRIPT}`, command: duckdbCommand(base), remote: absolute });
  await output.write(CATALOGUE, JSON.stringify(catalogue, null, 2));
  // Unindented, as the statistics: read by a table's page before its first rows, rarely by people.
  for (const own of tableCatalogues(catalogue)) await output.write(own.path, JSON.stringify(own.catalogue));
  await output.write(DATAPACKAGE, JSON.stringify(dataPackageOf(snapshot, tables, pages?.home, statistics), null, 2));
  await output.write(
    DCAT,
    JSON.stringify(dcatOf({ snapshot, datasets, tables, base, publisher: publisherOf(snapshot.manifest.source, publisher), pages }), null, 2),
  );
  await output.write(DUCKDB_SCRIPT, duckdbScript(snapshot, tables, base), { compress: false });
  const warnings = absolute
    ? []
    : [
        `${DCAT} names things by root-relative IRIs: a harvester resolves them only against the URL it reads the record from. Build with --base-url https://… (where the tree will be served) for a record with absolute IRIs.`,
      ];
  onStep?.(`downloads: ${files} Parquet files and their CSV twins`);
  return { files, bytes, warnings };
}
