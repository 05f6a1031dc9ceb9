import { queryString, type Query, type RenderContext } from '../../datasets/vocabulary/render.ts';
import { createRouter } from '../../datasets/vocabulary/router.ts';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { Endpoint } from '../../datasets/vocabulary/endpoint.ts';
import { UnnamableValue, type Defaults } from '../../datasets/answers/static-files.ts';
import { fileUrl, unitOf } from '../../datasets/answers/tree.ts';
import { formatInstant } from '../../core/zoned-time.ts';

const API = '/api/public/';

/** Thrown when a link points where the static tree has no file. */
export class NoStaticFile extends Error {}

/**
 * Rendering for the static tree: links point at its files, under `base` (empty for links from the
 * site's root, or e.g. `https://cdn.example.org/odsnap`); instants in UTC. A link outside the v1
 * interface (an upstream's own `/docs/…`, kept in what it sent beyond the spec) points where the
 * server would point it, under `base`; a v1 link with no file is a fault of the build.
 */
export function staticContext(
  datasets: readonly Dataset[],
  base: string,
  defaultsOf: (endpoint: Endpoint) => Defaults = () => ({}),
): RenderContext & { fileUrlOf(path: string, query?: Query): string } {
  const route = createRouter(datasets);
  const root = base.replace(/\/+$/, '');
  // A link with no query is mostly one of a few (a dictionary term) or one an item is linked by
  // from several files: remembered, it is not routed again for every row that shows it.
  const plain = new Map<string, string>();
  const fileUrlOf = (path: string, query: Query = {}) => {
    const isPlain = Object.keys(query).length === 0;
    const known = isPlain ? plain.get(path) : undefined;
    if (known !== undefined) return known;
    const url = routed(path, query);
    if (isPlain) {
      if (plain.size >= 100_000) plain.clear();
      plain.set(path, url);
    }
    return url;
  };
  const routed = (path: string, query: Query) => {
    if (!path.startsWith(API)) return `${root}${path}${queryString(query)}`;
    const found = route(path);
    const text = Object.fromEntries(
      Object.entries(query)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, String(v)]),
    );
    const unit = found && unitOf(found.endpoint, text, defaultsOf(found.endpoint));
    if (!found || !unit) throw new NoStaticFile(`no file of the static tree answers ${path}${queryString(query)}`);
    try {
      return root + fileUrl(found.endpoint, found.params, unit, defaultsOf(found.endpoint));
    } catch (error) {
      // A record left out of the tree (its id is no possible file name): linked as the v1 request it is.
      if (error instanceof UnnamableValue) return `${root}${path}${queryString(query)}`;
      throw error;
    }
  };
  return { timeZone: 'UTC', link: fileUrlOf, time: (ms) => formatInstant(ms, 'UTC'), fileUrlOf };
}
