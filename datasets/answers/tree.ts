import type { Endpoint } from '../vocabulary/endpoint.ts';
import { kindOf, kinds } from './index.ts';
import { fileIn, requestIn, segmentsIn, WHOLE, type Defaults, type FileUnit } from './static-files.ts';

/**
 * The static tree's layout: which file answers which v1 request, by the endpoint's kind (see
 * each kind's `tree.layout`). A file is the request's path with `.json`, and for requests that take a
 * range or a page, more segments naming the unit:
 *
 *   /api/public/rcn/transactions.json                    GET /api/public/rcn/transactions (limit 100, offset 0)
 *   /api/public/rcn/transactions/offset/200.json         …?limit=100&offset=200
 *   /api/public/rcn/transactions/{transactionGmlId}.json GET /api/public/rcn/transactions/{id}
 *   /api/public/citybike/rides/2024-05-01/2.json         …/rides?from=2024-05-01&to=2024-05-01&page=2&pageSize=500
 *   /api/public/bike-counter/counters/{id}/readings/2024-05.json
 *                                                        …/readings?from=2024-05-01&to=2024-05-31
 *
 * Days and months are UTC, as the v1 default `timezone` reads them. Path values are file names
 * as they are; links encode them as a URL path would.
 */

type Values = Readonly<Record<string, string>>;

/**
 * An endpoint's layout, by what its upstream defaults to (see the manifest's endpoints): the
 * functions below take those defaults last, none meaning the spec's.
 */
const layoutOf = (endpoint: Endpoint, defaults: Defaults = {}) => kindOf(endpoint.answer).tree.layout(defaults);

/** The file's path in the tree, as on disk (path values unencoded): `api/public/rcn/transactions/offset/200.json`. */
export const filePath = (endpoint: Endpoint, values: Values, unit: FileUnit = WHOLE, defaults?: Defaults): string =>
  segmentsIn(endpoint, layoutOf(endpoint, defaults), values, unit).join('/') + '.json';

/** The file's URL path under the tree's base: `/api/public/…`, values percent-encoded. */
export const fileUrl = (endpoint: Endpoint, values: Values, unit: FileUnit = WHOLE, defaults?: Defaults): string =>
  '/' + segmentsIn(endpoint, layoutOf(endpoint, defaults), values, unit).map(encodeURIComponent).join('/') + '.json';

/** A file's path values and unit, from its path in the tree: the inverse of filePath. */
export const fileOf = (endpoint: Endpoint, path: string, defaults?: Defaults) => fileIn(endpoint, layoutOf(endpoint, defaults), path);

/** The v1 request a file stands for: its path and query. */
export const requestOf = (endpoint: Endpoint, values: Values, unit: FileUnit, defaults?: Defaults) =>
  requestIn(endpoint, layoutOf(endpoint, defaults), values, unit);

/** The pattern of an endpoint's files and of the requests they stand for, placeholders in braces. */
export function patternsOf(endpoint: Endpoint, defaults?: Defaults): { file: string; request: string } {
  const { pattern } = layoutOf(endpoint, defaults);
  return { file: `${endpoint.fullPath}${pattern.file}.json`, request: `GET ${endpoint.fullPath}${pattern.query}` };
}

/**
 * Which unit of an endpoint a request's query asks for, if a file holds it. Parameters at their
 * defaults (version v1, timezone UTC, and the kind's own: the page size, offset 0, page 1) may be
 * given or left out.
 */
export function unitOf(endpoint: Endpoint, query: Readonly<Record<string, string>>, defaults?: Defaults): FileUnit | undefined {
  const rest: Record<string, string> = { ...query };
  if (rest.version === 'v1') delete rest.version;
  if (rest.timezone === 'UTC') delete rest.timezone;
  return layoutOf(endpoint, defaults).unitFor(rest);
}

/** Whether the endpoint's files are pages of one answer, the first of them the request with no query. */
export const isPaged = (endpoint: Endpoint, defaults?: Defaults): boolean =>
  unitOf(endpoint, {}, defaults) !== undefined && layoutOf(endpoint, defaults).pattern.file !== '';

/** What the tree's index says of how files are laid out, kind by kind, for these endpoints. */
export function layoutAbout(endpoints: readonly { readonly endpoint: Endpoint; readonly defaults?: Defaults }[]): string[] {
  const abouts = endpoints.map(({ endpoint, defaults }) => ({ at: kinds.indexOf(kindOf(endpoint.answer)), about: layoutOf(endpoint, defaults).about }));
  return [
    ...new Set(
      abouts
        .filter((a) => a.about)
        .sort((a, b) => a.at - b.at)
        .map((a) => a.about!),
    ),
  ];
}
