import type { Dataset } from '../datasets/vocabulary/dataset.ts';
import type { Endpoint } from '../datasets/vocabulary/endpoint.ts';
import type { Table } from '../core/table.ts';
import { languages, type Language } from '../core/text.ts';
import { datasetPagePath } from '../core/published-tree.ts';
import { manualPages, manualRoute, type ManualPage } from './manual/manual.ts';

/**
 * Every page of the site, from the data-set registry: a route (relative to the site's base and
 * to the language's prefix, ending in `/`) and what it shows. Each route exists once per
 * language; English has no prefix, Polish lives under `pl/`.
 */

/** The site's base (Astro's `base`), ending in `/`: what its own links start with. */
export const siteBase = () => import.meta.env.BASE_URL.replace(/\/?$/, '/');

export type View =
  | { readonly kind: 'home' }
  | { readonly kind: 'dataset'; readonly dataset: Dataset }
  /** A table's rows to browse, sort, filter and download, read in the browser from its Parquet files. */
  | { readonly kind: 'table'; readonly dataset: Dataset; readonly table: Table }
  | { readonly kind: 'map' }
  | { readonly kind: 'downloads' }
  | { readonly kind: 'docs' }
  | { readonly kind: 'dataset-docs'; readonly dataset: Dataset }
  | { readonly kind: 'endpoint-docs'; readonly dataset: Dataset; readonly endpoint: Endpoint }
  | { readonly kind: 'openapi' }
  | { readonly kind: 'query' }
  | { readonly kind: 'datasets' }
  | { readonly kind: 'viewer' }
  /** How fresh the data is: the mirror's status as the tree was built. */
  | { readonly kind: 'status' }
  /** A page of the manual: a Markdown file of docs/. */
  | { readonly kind: 'manual'; readonly page: ManualPage };

export interface SitePage {
  readonly lang: Language;
  readonly route: string;
  readonly view: View;
}

/** `transactions/{transactionGmlId}` → `transactions.transactionGmlId`: one path segment per endpoint, as the static tree's listings name them. */
export const endpointSlug = (endpoint: Endpoint) => endpoint.path.slice(1).replace(/[{}]/g, '').replaceAll('/', '.');

export const routes = {
  home: '',
  map: 'map/',
  downloads: 'downloads/',
  /** A data set's own page: counts, coverage, charts, map. */
  datasetPage: (dataset: Dataset) => datasetPagePath(dataset.name),
  /** A table's page: its rows in a grid (site/client/table-explorer.ts). */
  tablePage: (dataset: Dataset, table: Table) => `${datasetPagePath(dataset.name)}${table.name}/`,
  docs: 'docs/',
  openapi: 'docs/openapi/',
  query: 'query/',
  /** Every data set, with its tables, rows and coverage in time. */
  datasets: 'datasets/',
  /** The JSON viewer: any file of the static tree, `?url=/api/public/…json`, as a table or a record. */
  viewer: 'view/',
  /** How fresh the data is (the tree's status document, api/public/status.json). */
  status: 'status/',
  /** The manual's contents (docs/README.md); each of its pages is `manual/<file's name>/`. */
  manual: manualRoute,
  dataset: (dataset: Dataset) => `docs/${dataset.name}/`,
  endpoint: (dataset: Dataset, endpoint: Endpoint) => `docs/${dataset.name}/${endpointSlug(endpoint)}/`,
};

export function sitePages(datasets: readonly Dataset[]): SitePage[] {
  const views: [string, View][] = [
    [routes.home, { kind: 'home' }],
    [routes.map, { kind: 'map' }],
    [routes.downloads, { kind: 'downloads' }],
    [routes.docs, { kind: 'docs' }],
    [routes.openapi, { kind: 'openapi' }],
    [routes.query, { kind: 'query' }],
    [routes.datasets, { kind: 'datasets' }],
    [routes.viewer, { kind: 'viewer' }],
    [routes.status, { kind: 'status' }],
    ...manualPages.map((page): [string, View] => [page.route, { kind: 'manual', page }]),
    ...datasets.flatMap((dataset): [string, View][] => [
      [routes.datasetPage(dataset), { kind: 'dataset', dataset }],
      ...Object.values(dataset.tables).map((table): [string, View] => [routes.tablePage(dataset, table), { kind: 'table', dataset, table }]),
      [routes.dataset(dataset), { kind: 'dataset-docs', dataset }],
      ...dataset.endpoints.map((endpoint): [string, View] => [routes.endpoint(dataset, endpoint), { kind: 'endpoint-docs', dataset, endpoint }]),
    ]),
  ];
  // A data set named like a fixed page (say `openapi`) would silently shadow it.
  const seen = new Set<string>();
  for (const [route] of views) {
    if (seen.has(route)) throw new Error(`two pages of the site want /${route}`);
    seen.add(route);
  }
  return languages.flatMap((lang) => views.map(([route, view]) => ({ lang, route, view })));
}

/** The page's path under the site's base, without a leading slash: `pl/docs/rcn/`. */
export const localePath = (lang: Language, route: string) => (lang === 'en' ? route : `${lang}/${route}`);
