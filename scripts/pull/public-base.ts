import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import { queryString, type RenderContext } from '../../datasets/vocabulary/render.ts';
import { formatInstant } from '../../core/zoned-time.ts';
import type { Journal } from './journal.ts';
import { recordsOf } from './normalize.ts';

/**
 * The address an upstream writes its links on, learned from its answers. A record's `uri` ends
 * with the path the record's own fields give (a transaction's with its id); what comes before is
 * the upstream's public base. Behind a reverse proxy or a CDN, or under https where it was pulled
 * over http, it is not the address the pull was sent to, and links inside records must be made
 * relative to it to be served against the mirror's address.
 */

/** Renders links as their path and query alone. */
const paths: RenderContext = { timeZone: 'UTC', link: (path, query) => `${path}${queryString(query)}`, time: (ms) => formatInstant(ms, 'UTC') };

/** Records looked at before the most common base is taken. */
const ENOUGH = 100;

export async function learnPublicBase(journal: Journal, datasets: readonly Dataset[], pulledFrom: string): Promise<string> {
  const counts = new Map<string, number>();
  let seen = 0;
  entries: for await (const entry of journal.entries()) {
    const dataset = datasets.find((d) => d.name === entry.dataset);
    for (const batch of dataset ? (entry.batches ?? []) : []) {
      const resource = dataset!.resources[batch.resource];
      if (!resource?.parse || batch.checkOnly) continue;
      // One record of a batch is enough: its others say the same.
      for (const [record, params] of recordsOf(batch, entry.answers?.[batch.answer])) {
        const uri = (record as { uri?: unknown } | null)?.uri;
        const checked = typeof uri === 'string' ? resource.schema.safeParse(record) : undefined;
        if (!checked?.success) continue;
        let path: unknown;
        try {
          const row = resource.parse(checked.data, { params, path: batch.path, fetchedAt: batch.fetchedAt, json: (value) => value, unread: () => {} });
          path = (resource.render({ ...row, extra: null }, paths) as { uri?: unknown }).uri;
        } catch {
          continue;
        }
        if (typeof path === 'string' && path.startsWith('/') && (uri as string).endsWith(path)) {
          const base = (uri as string).slice(0, -path.length);
          counts.set(base, (counts.get(base) ?? 0) + 1);
          if (++seen >= ENOUGH) break entries;
        }
        break;
      }
    }
  }
  const [best] = [...counts].sort((a, b) => b[1] - a[1]);
  return best?.[0] ?? pulledFrom;
}
