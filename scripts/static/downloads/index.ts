import { join } from 'node:path';
import type { Snapshot } from '../../../core/snapshot/read.ts';
import { CATALOGUE, DATAPACKAGE, datasetPagePath, DCAT, DUCKDB_SCRIPT } from '../../../core/published-tree.ts';
import type { Dataset } from '../../../datasets/vocabulary/dataset.ts';
import type { TreeOutput } from '../tree-output.ts';
import { catalogueOf } from './catalogue.ts';
import type { CsvFiles } from './csv-files.ts';
import { dataPackageOf } from './datapackage.ts';
import { dcatOf, type Publisher } from './dcat.ts';
import { absoluteBase, duckdbCommand, duckdbScript } from './duckdb-script.ts';
import { tableDownloads } from './files.ts';

/**
 * The bulk downloads (see files.ts): every Parquet file of the snapshot and its CSV twin, and
 * four descriptions of them: odsnap's catalogue, a Frictionless Data Package, a DCAT-AP record
 * and a DuckDB script. All carry the snapshot's licence (CC BY 4.0) and attribution.
 */

export interface DownloadsOptions {
  readonly snapshot: Snapshot;
  readonly datasets: readonly Dataset[];
  readonly output: TreeOutput;
  /** Prefix of absolute links ('' for root-relative ones). */
  readonly base: string;
  /** The CSV twins, by the sha256 of their Parquet files. */
  readonly csv: CsvFiles;
  readonly publisher: Publisher;
  /** Whether the tree holds the site, whose pages the descriptions name. */
  readonly site?: boolean;
}

export interface DownloadsResult {
  /** Parquet files, each with its CSV twin. */
  readonly files: number;
  readonly bytes: number;
  /** What a reader of the descriptions should know, e.g. that their IRIs are relative. */
  readonly warnings: readonly string[];
}

export async function writeDownloads({ snapshot, datasets, output, base, csv, publisher, site = false }: DownloadsOptions): Promise<DownloadsResult> {
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

  // Pages and the package's home are named by URL: a tree linked from its root has none to give.
  const absolute = absoluteBase(base);
  const pages = site && absolute ? { home: `${base}/`, dataset: (name: string) => `${base}/${datasetPagePath(name)}` } : undefined;
  await output.write(CATALOGUE, JSON.stringify(catalogueOf(snapshot, tables, { script: `${base}/${DUCKDB_SCRIPT}`, command: duckdbCommand(base), remote: absolute }), null, 2));
  await output.write(DATAPACKAGE, JSON.stringify(dataPackageOf(snapshot, tables, pages?.home), null, 2));
  await output.write(DCAT, JSON.stringify(dcatOf({ snapshot, datasets, tables, base, publisher, pages }), null, 2));
  await output.write(DUCKDB_SCRIPT, duckdbScript(snapshot, tables, base), { compress: false });
  const warnings = absolute
    ? []
    : [`${DCAT} names things by root-relative IRIs: a harvester resolves them only against the URL it reads the record from. Build with --base-url https://… (where the tree will be served) for a record with absolute IRIs.`];
  return { files, bytes, warnings };
}
