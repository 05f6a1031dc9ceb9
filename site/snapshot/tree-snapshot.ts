import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { ChartData, MapLayerData } from '../../datasets/vocabulary/figure.ts';
import type { Text } from '../../core/text.ts';
import { isSynthetic, type SnapshotSource } from '../../core/snapshot/manifest.ts';
import { CATALOGUE, CHANGES_INDEX, changesPath, figuresPath, STATUS_FILE } from '../../core/published-tree.ts';
import type { StatusDocument } from '../../core/status-document.ts';
import { extremes } from '../figures/extremes.ts';

/**
 * What the data-set pages, the map and the downloads page show of the snapshot: read once per
 * build from the static tree being written (`ODSNAP_SITE_TREE`), which already holds the index,
 * the figures of every data set and the downloads catalogue. Without a tree there is nothing to
 * show, and the pages say so. URLs are kept as the tree wrote them (root-relative, or absolute
 * for a tree built with an absolute base).
 */

export interface CatalogueFile {
  readonly url: string;
  readonly rows: number;
  readonly bytes: number;
  readonly sha256: string;
  readonly partition: Readonly<Record<string, string>>;
  readonly min: string | null;
  readonly max: string | null;
  /** The same rows as gzip-compressed CSV. */
  readonly csv: { readonly url: string; readonly bytes: number; readonly sha256: string };
}

export interface CatalogueTable {
  readonly dataset: string;
  readonly table: string;
  readonly sqlName: string;
  readonly description: Text;
  readonly rows: number;
  readonly timeColumn: string | null;
  readonly files: readonly CatalogueFile[];
}

export interface Licence {
  readonly id: string;
  readonly name: string;
  readonly url: string;
  readonly attribution: string;
}

export interface DatasetSnapshot {
  /** URL of the published figures, `api/public/figures/<data set>.json`. */
  readonly figuresUrl: string;
  readonly charts: readonly ChartData[];
  readonly map: readonly MapLayerData[];
  readonly tables: readonly CatalogueTable[];
}

/** A record in a pull's changes, linked to its file when the tree has one (see scripts/static/changes.ts). */
export interface ChangedRecord {
  readonly key: string;
  readonly url?: string;
  readonly fields?: Readonly<Record<string, { readonly old: unknown; readonly new: unknown }>>;
}

export interface ChangedTable {
  readonly table: string;
  readonly added: number;
  readonly changed: number;
  readonly removed: number;
  readonly records?: {
    readonly added: readonly ChangedRecord[];
    readonly changed: readonly ChangedRecord[];
    readonly removed: readonly ChangedRecord[];
    readonly truncated: boolean;
  };
  readonly days?: readonly { readonly day: string | null; readonly added: number; readonly changed: number; readonly removed: number }[];
}

/** What one pull changed, as the tree publishes it. */
export interface PublishedPull {
  readonly snapshot: { readonly id: string; readonly createdAt: string };
  readonly previous: { readonly id: string; readonly createdAt: string };
  /** The pull's file in the tree. */
  readonly url: string;
  readonly datasets: readonly { readonly name: string; readonly tables: readonly ChangedTable[] }[];
}

/** Pulls whose changes the site shows in full: the last few. */
export const PULLS_SHOWN = 3;

export interface TreeSnapshot {
  readonly id: string;
  readonly createdAt: string;
  /** The records are the sample city's, made up by odsnap (as the snapshot's manifest records its source): every page says so. */
  readonly synthetic: boolean;
  readonly licence: Licence;
  readonly downloads: { readonly catalogue: string; readonly datapackage: string; readonly dcat: string };
  /** The DuckDB script with a view per table, and the command line that opens it. */
  readonly duckdb: { readonly script: string; readonly command: string; readonly remote: boolean };
  readonly datasets: ReadonlyMap<string, DatasetSnapshot>;
  /** The tree's list of pulls, the last few pulls' changes, newest first, and each data set's Atom feed. */
  readonly changes: { readonly index: string; readonly pulls: readonly PublishedPull[]; readonly feeds: Readonly<Record<string, string>> };
  /** How fresh the data was as the tree was built, and the URL of that document (null in a tree written before there was one). */
  readonly status: { readonly document: StatusDocument; readonly url: string } | null;
}

interface TreeIndex {
  readonly snapshot: { readonly id: string; readonly createdAt: string; readonly source: SnapshotSource };
  readonly licence: Licence;
  readonly datasets: readonly { readonly name: string; readonly figures?: string }[];
  readonly downloads: TreeSnapshot['downloads'];
  readonly changes?: string;
  readonly status?: string;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;

/** The snapshot in a tree written by `odsnap build`, for the registry's data sets. */
export function readTreeSnapshot(treeDir: string, datasets: readonly Dataset[]): TreeSnapshot {
  const indexPath = join(treeDir, 'api/public/index.json');
  if (!existsSync(indexPath)) throw new Error(`${treeDir} holds no static tree (no api/public/index.json); run odsnap build or leave ODSNAP_SITE_TREE unset`);
  const index = readJson<TreeIndex>(indexPath);
  const catalogue = readJson<{ tables: CatalogueTable[]; duckdb: TreeSnapshot['duckdb'] }>(join(treeDir, CATALOGUE));
  const byName = new Map<string, DatasetSnapshot>();
  for (const dataset of datasets) {
    const listed = index.datasets.find((entry) => entry.name === dataset.name);
    if (!listed) continue;
    const figuresFile = join(treeDir, figuresPath(dataset.name));
    const figures = existsSync(figuresFile) ? readJson<{ charts: ChartData[]; map: MapLayerData[] }>(figuresFile) : { charts: [], map: [] };
    byName.set(dataset.name, {
      figuresUrl: listed.figures ?? `/${figuresPath(dataset.name)}`,
      charts: figures.charts,
      map: figures.map,
      tables: catalogue.tables.filter((table) => table.dataset === dataset.name),
    });
  }
  return {
    id: index.snapshot.id,
    createdAt: index.snapshot.createdAt,
    synthetic: isSynthetic(index.snapshot.source),
    licence: index.licence,
    downloads: index.downloads,
    duckdb: catalogue.duckdb,
    datasets: byName,
    changes: readChanges(treeDir, index),
    status: existsSync(join(treeDir, STATUS_FILE))
      ? { document: readJson<StatusDocument>(join(treeDir, STATUS_FILE)), url: index.status ?? `/${STATUS_FILE}` }
      : null,
  };
}

function readChanges(treeDir: string, index: TreeIndex): TreeSnapshot['changes'] {
  const listed = existsSync(join(treeDir, CHANGES_INDEX))
    ? readJson<{ pulls: { snapshot: string; url: string }[]; feeds: Record<string, string> }>(join(treeDir, CHANGES_INDEX))
    : { pulls: [], feeds: {} };
  const pulls = listed.pulls
    .slice(0, PULLS_SHOWN)
    .map(({ snapshot, url }) => ({ ...readJson<Omit<PublishedPull, 'url'>>(join(treeDir, changesPath(snapshot))), url }));
  return { index: index.changes ?? `/${CHANGES_INDEX}`, pulls, feeds: listed.feeds };
}

/** The bounding box of map places, in degrees. */
export function boundingBox(places: readonly { readonly lon: number; readonly lat: number }[]) {
  const lon = extremes(places.map((place) => place.lon));
  const lat = extremes(places.map((place) => place.lat));
  if (!lon || !lat) return undefined;
  return { west: lon.min, east: lon.max, south: lat.min, north: lat.max };
}

let cached: TreeSnapshot | null | undefined;

/** The snapshot of this build's tree, or null when the site is built without one. */
export function siteSnapshot(datasets: readonly Dataset[]): TreeSnapshot | null {
  if (cached === undefined) {
    const tree = process.env.ODSNAP_SITE_TREE;
    cached = tree ? readTreeSnapshot(tree, datasets) : null;
  }
  return cached;
}
