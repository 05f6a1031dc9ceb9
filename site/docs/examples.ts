import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import type { Endpoint } from '../../datasets/vocabulary/endpoint.ts';
import { fileUrl, patternsOf, unitOf } from '../../datasets/answers/tree.ts';

/**
 * Live examples of an endpoint: a file of the static tree and the request to a server that it
 * stands for. With a built tree at hand (`ODSNAP_SITE_TREE`), each endpoint's first listed file
 * gives real values; without one, only what needs no values is a link, the rest a pattern.
 */

export interface EndpointExample {
  /** Pattern of the endpoint's files, placeholders in braces. */
  readonly filePattern: string;
  /** `GET …` with placeholders: the request each file stands for. */
  readonly standsFor: string;
  /** A file of the tree, as a URL path (or absolute, for a tree built with an absolute base). */
  readonly file?: string;
  /** A request target on the server (under the site's base): path and query. Placeholders in braces when no values are known. */
  readonly request: string;
  /** Whether `request` has real values, so it can be followed. */
  readonly requestIsLive: boolean;
  /** Path values of the example, when known. */
  readonly pathValues?: Readonly<Record<string, string>>;
}

interface ListedFile {
  readonly url: string;
  readonly request: string;
  /** The endpoint's patterns as the tree's index gives them: by what its upstream defaults to (a list's page size). */
  readonly pattern?: string;
  readonly standsFor?: string;
}

/** The first file of every endpoint in a static tree written by `odsnap build`, by full path. */
export function firstFilesOf(treeDir: string | undefined): ReadonlyMap<string, ListedFile> {
  const found = new Map<string, ListedFile>();
  if (!treeDir) return found;
  const indexPath = join(treeDir, 'api/public/index.json');
  if (!existsSync(indexPath)) throw new Error(`${treeDir} holds no static tree (no api/public/index.json); run odsnap build or leave ODSNAP_SITE_TREE unset`);
  const index = JSON.parse(readFileSync(indexPath, 'utf8')) as {
    datasets: { endpoints: { path: string; files: number; listing: string; pattern: string; standsFor: string }[] }[];
  };
  for (const endpoint of index.datasets.flatMap((dataset) => dataset.endpoints)) {
    if (!endpoint.files) continue;
    // Listings live at api/public/index/…, whatever base the tree's links were built with.
    const listing = endpoint.listing.slice(endpoint.listing.indexOf('api/public/index/'));
    const first = (JSON.parse(readFileSync(join(treeDir, listing), 'utf8')) as { files: ListedFile[] }).files[0];
    if (first) found.set(endpoint.path, { ...first, pattern: endpoint.pattern, standsFor: endpoint.standsFor });
  }
  return found;
}

/**
 * `base` is the site's base path (`/` or `/odsnap/`): files without a tree are assumed beside the
 * site; a tree's own listing already carries the base it was built with.
 */
export function exampleOf(endpoint: Endpoint, listed: ListedFile | undefined, base = '/'): EndpointExample {
  const under = (path: string) => `${base.replace(/\/+$/, '')}${path}`;
  const patterns = patternsOf(endpoint);
  const standsFor = patterns.request;
  if (listed) {
    const request = listed.request.replace(/^GET /, '');
    const pathValues = valuesOf(endpoint, request);
    return {
      filePattern: listed.pattern ?? patterns.file,
      standsFor: listed.standsFor ?? standsFor,
      file: listed.url,
      request: under(request),
      requestIsLive: true,
      pathValues,
    };
  }
  // Without path values, a file is known only where the request with no query has one: a whole
  // answer, or the first page of an offset-paged list.
  const fileIsFixed = endpoint.pathParams.length === 0 && unitOf(endpoint, {}) !== undefined;
  const required = Object.keys(endpoint.params).filter(
    (name) => !endpoint.pathParams.includes(name) && !(endpoint.params[name] as z.ZodType).safeParse(undefined).success,
  );
  const query = required.map((name) => `${name}={${name}}`).join('&');
  const request = under(`${endpoint.fullPath}${query ? `?${query}` : ''}`);
  return {
    filePattern: patterns.file,
    standsFor,
    file: fileIsFixed ? under(fileUrl(endpoint, {})) : undefined,
    request,
    requestIsLive: !request.includes('{'),
  };
}

/** Path values of a request target, matched against the endpoint's path. */
function valuesOf(endpoint: Endpoint, request: string): Record<string, string> {
  const segments = request.split('?')[0]!.split('/');
  const values: Record<string, string> = {};
  endpoint.fullPath.split('/').forEach((segment, i) => {
    const name = /^\{(\w+)\}$/.exec(segment)?.[1];
    if (name) values[name] = decodeURIComponent(segments[i]!);
  });
  return values;
}
