import type { Resource } from '../../datasets/vocabulary/dataset.ts';
import { queryString, type RenderContext } from '../../datasets/vocabulary/render.ts';
import { formatInstant } from '../../core/zoned-time.ts';
import type { Journal } from './journal.ts';
import type { Batch } from './journal-line.ts';
import { recordsOf } from './normalize.ts';

/**
 * The address an upstream writes its links on, learned from its answers. A record's `uri` ends
 * with the path the record's own fields give (a transaction's with its id); what comes before is
 * the upstream's public base. Behind a reverse proxy or a CDN, or under https where it was pulled
 * over http, it is not the address the pull was sent to, and links inside records must be made
 * relative to it to be served against the mirror's address. Each unit of a crawl notes the base
 * its first record shows (`base` in its meta, see baseIn), so the journal's metas, kept in memory,
 * say it without a record being read again.
 */

/** Renders links as their path and query alone. */
const paths: RenderContext = { timeZone: 'UTC', link: (path, query) => `${path}${queryString(query)}`, time: (ms) => formatInstant(ms, 'UTC') };

/** The base the first record of a batch that has a `uri` shows, if any. */
export function baseIn(resource: Resource, batch: Omit<Batch, 'answer'>, answer: unknown): string | undefined {
  if (!resource.parse || batch.checkOnly) return undefined;
  for (const [record, params] of recordsOf({ ...batch, answer: 0 }, answer)) {
    const uri = (record as { uri?: unknown } | null)?.uri;
    const checked = typeof uri === 'string' ? resource.schema.safeParse(record) : undefined;
    if (!checked?.success) return undefined;
    try {
      const row = resource.parse(checked.data, { params, path: batch.path, fetchedAt: batch.fetchedAt, json: (value) => value, unread: () => {} });
      const path = (resource.render({ ...row, extra: null, upstream_json: null }, paths) as { uri?: unknown }).uri;
      return typeof path === 'string' && path.startsWith('/') ? baseBefore(uri as string, path) : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

const decoded = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/**
 * `uri` less its end that is `path`, as odsnap writes it or with its segments escaped otherwise
 * (an id's `:` or `+` left as they are, which a path segment allows); undefined when it ends otherwise.
 */
function baseBefore(uri: string, path: string): string | undefined {
  if (uri.endsWith(path)) return uri.slice(0, -path.length);
  const want = path.split('/').slice(1);
  const have = uri.split('/');
  if (have.length <= want.length) return undefined;
  const tail = have.slice(-want.length);
  return tail.every((segment, i) => decoded(segment) === decoded(want[i]!)) ? have.slice(0, -want.length).join('/') : undefined;
}

/** The base most units of the journal showed; the address pulled from when none did. */
export function learnPublicBase(journal: Journal, pulledFrom: string): string {
  const counts = new Map<string, number>();
  for (const meta of journal.metas()) {
    const base = (meta as { base?: unknown } | null)?.base;
    if (typeof base === 'string') counts.set(base, (counts.get(base) ?? 0) + 1);
  }
  const [best] = [...counts].sort((a, b) => b[1] - a[1]);
  return best?.[0] ?? pulledFrom;
}
