import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The files of a static tree others read by name: the site reads what the builder wrote, and
 * `odsnap serve` and `start` tell which snapshot a tree holds.
 */

/** The static tree's entry point: its snapshot, licence, and every data set, endpoint and file pattern. */
export const INDEX = 'api/public/index.json';

export const DOWNLOADS = 'downloads';
/** Every Parquet file of the snapshot with its rows, bytes, sha256, partition values and time range. */
export const CATALOGUE = `${DOWNLOADS}/catalogue.json`;
export const DATAPACKAGE = 'datapackage.json';
export const DCAT = `${DOWNLOADS}/dcat.jsonld`;

/** The rows of a data set's charts and map layers. */
export const figuresPath = (dataset: string) => `api/public/figures/${dataset}.json`;

/** The snapshot a static tree (or the directory it is swapped in at) was built from; undefined when there is no tree odsnap can read. */
export function builtSnapshotId(tree: string): string | undefined {
  try {
    const id = (JSON.parse(readFileSync(join(tree, INDEX), 'utf8')) as { snapshot?: { id?: unknown } }).snapshot?.id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
