import type { Manifest } from '../../core/snapshot/manifest.ts';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import { feedDocumentPath, type FeedSource } from '../../datasets/vocabulary/feed.ts';
import type { RenderContext } from '../../datasets/vocabulary/render.ts';
import type { SnapshotRows } from './snapshot-rows.ts';
import type { TreeOutput } from './tree-output.ts';

/**
 * The feeds step of a build: every document of the data sets' feeds (a GBFS feed, see
 * datasets/vocabulary/feed.ts), made from the snapshot's newest capture and written at the path
 * the server answers it at. Their URLs are absolute only when the tree's base is: a document that
 * needs them (GBFS's gbfs.json) is left out of a tree with root-relative links. What is left out,
 * whole or in part, comes back as a warning (what a --base-url mends) or a note (what its mapping leaves out); what is written, for the index to link.
 */

export interface FeedsInput {
  readonly datasets: readonly Dataset[];
  readonly rows: SnapshotRows;
  readonly manifest: Manifest;
  /** Prefix of links in the tree ('' for root-relative ones). */
  readonly base: string;
  readonly context: RenderContext;
  /** An e-mail address for reports about the feeds (build --contact, when it is one). */
  readonly contact?: string;
}

export interface FeedsWritten {
  /** The documents written, by their path in the tree. */
  readonly paths: readonly string[];
  /** What a `--base-url` would mend (a document left out). */
  readonly warnings: readonly string[];
  /** What a document leaves out by its mapping, whatever the build's options: said, not warned of. */
  readonly notes: readonly string[];
}

export async function writeFeeds(output: TreeOutput, input: FeedsInput): Promise<FeedsWritten> {
  const paths: string[] = [];
  const warnings: string[] = [];
  const notes: string[] = [];
  const absolute = /^https?:\/\//.test(input.base);
  for (const dataset of input.datasets) {
    const query = input.rows.queryFor(dataset, input.context);
    for (const feed of dataset.feeds) {
      const source: FeedSource = {
        dataset: { name: dataset.name, title: dataset.title },
        manifest: input.manifest,
        rows: (resource) => query.rows(resource),
        latest: (resource) => query.latest(resource),
        url: (file) => (absolute ? `${input.base}/${feedDocumentPath(feed.name, dataset.name, file)}` : undefined),
        ...(input.contact ? { contact: input.contact } : {}),
      };
      for (const document of feed.documents) {
        const path = feedDocumentPath(feed.name, dataset.name, document.file);
        const made = await document.make(source);
        if ('unavailable' in made) {
          warnings.push(`${path} is left out: ${made.unavailable}`);
          continue;
        }
        await output.write(path, JSON.stringify(made.body));
        paths.push(path);
        notes.push(...(made.leftOut ?? []).map((what) => `${path} leaves out ${what}`));
      }
    }
  }
  return { paths, warnings, notes };
}

/** The e-mail address of a DCAT contact (`mailto:…`), which the feeds give too; a web page is none. */
export const contactEmail = (contact: string | undefined) => (contact?.startsWith('mailto:') ? contact.slice('mailto:'.length) : undefined);
