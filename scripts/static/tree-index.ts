import { CATALOGUE, CHANGES_INDEX, DATAPACKAGE, DCAT, DUCKDB_SCRIPT, figuresPath, INDEX, OPENAPI, STATUS_FILE } from '../../core/published-tree.ts';
import type { Manifest } from '../../core/snapshot/manifest.ts';
import type { Defaults } from '../../datasets/answers/static-files.ts';
import { filePath, isPaged, layoutAbout, patternsOf } from '../../datasets/answers/tree.ts';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { Endpoint } from '../../datasets/vocabulary/endpoint.ts';
import { feedDocumentPath } from '../../datasets/vocabulary/feed.ts';
import type { FilesWritten } from './build-files.ts';
import { HEADERS_FILE, headersFile, NGINX_SNIPPET, nginxSnippet } from './hosting.ts';
import type { TreeOutput } from './tree-output.ts';

/**
 * The tree's entry point, `/api/public/index.json`: the snapshot, how files are named, every data
 * set's endpoints with their listings, and where the downloads, changes, status, site and hosting
 * files are; and the hosting files themselves (see hosting.ts). Written before the site is made,
 * which reads it.
 */
export interface IndexInput {
  readonly manifest: Manifest;
  readonly datasets: readonly Dataset[];
  readonly defaultsOf: (endpoint: Endpoint) => Defaults;
  readonly files: FilesWritten;
  /** The feeds' documents written (see feeds.ts), by their path in the tree. */
  readonly feeds: readonly string[];
  /** Prefix of links in the tree ('' for root-relative ones). */
  readonly base: string;
  /** Whether the tree holds the site (and the OpenAPI document it writes). */
  readonly site?: boolean;
}

export async function writeIndex(output: TreeOutput, { manifest, datasets, defaultsOf, files, feeds, base, site }: IndexInput): Promise<void> {
  const { leftOut } = files;
  const index = {
    snapshot: { id: manifest.id, createdAt: manifest.createdAt, source: manifest.source },
    licence: manifest.licence,
    about:
      'Every file answers one v1 request with the body the v1 server gives, links pointing into this tree. A file is the request path with .json; ' +
      `${layoutAbout(datasets.flatMap((d) => d.endpoints.map((endpoint) => ({ endpoint, defaults: defaultsOf(endpoint) })))).join('; ')}. Each endpoint lists its files.`,
    datasets: datasets.map((dataset) => ({
      name: dataset.name,
      title: dataset.title,
      description: dataset.description,
      endpoints: dataset.endpoints.map((endpoint) => describeEndpoint(endpoint, base, files.listed.get(endpoint.fullPath)!, defaultsOf(endpoint))),
      figures: `${base}/${figuresPath(dataset.name)}`,
      // Its feeds' documents (a GBFS feed), those this tree holds.
      ...(dataset.feeds.length
        ? {
            feeds: dataset.feeds.map((feed) => ({
              name: feed.name,
              title: feed.title,
              files: feeds.filter((path) => path.startsWith(feedDocumentPath(feed.name, dataset.name, ''))).map((path) => `${base}/${path}`),
            })),
          }
        : {}),
    })),
    downloads: { catalogue: `${base}/${CATALOGUE}`, datapackage: `${base}/${DATAPACKAGE}`, dcat: `${base}/${DCAT}`, duckdb: `${base}/${DUCKDB_SCRIPT}` },
    changes: `${base}/${CHANGES_INDEX}`,
    status: `${base}/${STATUS_FILE}`,
    // The site and the OpenAPI document it writes, when the tree holds them.
    ...(site ? { site: `${base}/`, openapi: `${base}/${OPENAPI}` } : {}),
    hosting: { nginx: `${base}/${NGINX_SNIPPET}`, headers: `${base}/${HEADERS_FILE}` },
    // Records whose files could not be written: their path values are no possible file name.
    ...(leftOut.length ? { leftOut: { files: leftOut.length, reasons: leftOut.slice(0, 100) } } : {}),
  };
  await output.write(INDEX, JSON.stringify(index, null, 2));
  await output.write(NGINX_SNIPPET, nginxSnippet(), { compress: false });
  await output.write(HEADERS_FILE, headersFile(), { compress: false });
}

function describeEndpoint(endpoint: Endpoint, base: string, listed: { files: number; listing: string }, defaults: Defaults) {
  const patterns = patternsOf(endpoint, defaults);
  return {
    path: endpoint.fullPath,
    summary: endpoint.summary,
    ...(endpoint.extension ? { extension: endpoint.extension } : {}),
    files: listed.files,
    pattern: `${base}${patterns.file}`,
    // Lists that are paged: their first file is the request with no query.
    ...(isPaged(endpoint, defaults) ? { first: `${base}/${filePath(endpoint, {}, undefined, defaults)}` } : {}),
    standsFor: patterns.request,
    listing: listed.listing,
  };
}
