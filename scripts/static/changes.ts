import { createHash } from 'node:crypto';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import { answerAs } from '../../datasets/answers/index.ts';
import type { RenderContext } from '../../datasets/vocabulary/render.ts';
import { readChanges, type SnapshotChanges, type TableChanges } from '../../core/snapshot/changes.ts';
import { listSnapshots, type Listed } from '../../core/snapshot/history.ts';
import { snapshotAt, type Snapshot } from '../../core/snapshot/read.ts';
import { CHANGES_INDEX, changesPath, feedPath } from '../../core/published-tree.ts';
import type { TreeOutput } from './tree-output.ts';

/**
 * What the last pulls changed, published in the tree: `api/public/changes/index.json` lists them,
 * newest first, with counts per table; `api/public/changes/<snapshot>.json` has one pull's records
 * (linked to their files, changed fields with old and new values) and, for series, counts per day;
 * a data set that declares a feed gets an Atom feed of its new and revised records. Read from the
 * changes each pull recorded in its snapshot: the one built and those before it still on disk.
 */

/** Pulls published, newest first; older ones stay in their snapshots while those are kept. */
export const PUBLISHED_PULLS = 30;
/** Entries of a feed, newest first. */
export const FEED_ENTRIES = 500;

export interface Pull {
  readonly snapshot: Snapshot;
  readonly changes: SnapshotChanges;
}

/**
 * The pulls that recorded changes, newest first: the built snapshot's and those of the snapshots
 * before it still on disk (a prune may leave gaps: each pull's record names the snapshot it was
 * compared against, kept or not).
 */
export async function pullsBack(dataDir: string, snapshot: Snapshot): Promise<Pull[]> {
  // Their manifests as listed, not read again for each.
  const recorded = (await listSnapshots(dataDir))
    .filter((entry): entry is Extract<Listed, { manifest: unknown }> => entry.id <= snapshot.id && 'manifest' in entry && entry.manifest.changes !== undefined)
    .reverse()
    .slice(0, PUBLISHED_PULLS);
  const pulls: Pull[] = [];
  for (const entry of recorded) {
    const at = entry.id === snapshot.id ? snapshot : snapshotAt(dataDir, entry.id, entry.manifest);
    // A snapshot pruned meanwhile is left out: its record is gone with it.
    const changes = await readChanges(at).catch(() => undefined);
    if (changes) pulls.push({ snapshot: at, changes });
  }
  return pulls;
}

interface TableCounts {
  readonly added: number;
  readonly changed: number;
  readonly removed: number;
}

/** The changes step of a build: the pulls back from `snapshot`, published. */
export async function publishChanges(
  output: TreeOutput,
  {
    dataDir,
    snapshot,
    datasets,
    context,
    base,
    onStep,
  }: { dataDir: string; snapshot: Snapshot; datasets: readonly Dataset[]; context: RenderContext; base: string; onStep?: (text: string) => void },
): Promise<void> {
  const pulls = await pullsBack(dataDir, snapshot);
  await writeChanges(output, pulls, datasets, context, base);
  onStep?.(`changes: ${pulls.length} pull${pulls.length === 1 ? '' : 's'} published`);
}

export async function writeChanges(
  output: TreeOutput,
  pulls: readonly Pull[],
  datasets: readonly Dataset[],
  context: RenderContext,
  base: string,
): Promise<void> {
  const linkOf = recordLinks(datasets, context);
  const feeds = datasets.filter((dataset) => dataset.feed);
  const index = {
    about:
      'What each pull changed against the snapshot before it, newest first, as far back as the snapshots are kept. Each file lists, per table, ' +
      'the records added, changed (each changed field with its old and new value) and removed, linked to their files in this tree, or, for a series, counts per day.',
    feeds: Object.fromEntries(feeds.map((dataset) => [dataset.name, `${base}/${feedPath(dataset.name)}`])),
    pulls: pulls.map(({ snapshot, changes }) => ({
      snapshot: snapshot.id,
      createdAt: snapshot.manifest.createdAt,
      previous: changes.from.id,
      url: `${base}/${changesPath(snapshot.id)}`,
      datasets: countsByDataset(changes),
    })),
  };
  await output.write(CHANGES_INDEX, JSON.stringify(index, null, 2));
  for (const { snapshot, changes } of pulls) await output.write(changesPath(snapshot.id), JSON.stringify(publishedPull(snapshot, changes, linkOf)));
  for (const dataset of feeds) await output.write(feedPath(dataset.name), atomFeed(dataset, pulls, linkOf, base));
}

const changedTables = (changes: SnapshotChanges) => changes.tables.filter((table) => table.added + table.changed + table.removed > 0);

function countsByDataset(changes: SnapshotChanges): Record<string, Record<string, TableCounts>> {
  const counts: Record<string, Record<string, TableCounts>> = {};
  for (const table of changedTables(changes))
    (counts[table.dataset] ??= {})[table.table] = { added: table.added, changed: table.changed, removed: table.removed };
  return counts;
}

type LinkOf = (dataset: string, table: string, key: string) => string | undefined;

/** A record's file in the tree, for tables whose records an item endpoint answers by their one key column. */
function recordLinks(datasets: readonly Dataset[], context: RenderContext): LinkOf {
  const items = new Map<string, (key: string) => string>();
  for (const dataset of datasets) {
    for (const endpoint of dataset.endpoints) {
      const answer = answerAs(endpoint.answer, 'item');
      if (!answer) continue;
      const table = dataset.tables[dataset.resources[answer.resource]!.table]!;
      if (table.key?.length !== 1 || answer.match[0] !== table.key[0]) continue;
      items.set(`${dataset.name}/${table.name}`, (key) => context.link(endpoint.fullPath.replace(`{${answer.param}}`, encodeURIComponent(key))));
    }
  }
  return (dataset, table, key) => items.get(`${dataset}/${table}`)?.(key);
}

function publishedPull(snapshot: Snapshot, changes: SnapshotChanges, linkOf: LinkOf) {
  const record = (table: TableChanges, key: string) => {
    const url = linkOf(table.dataset, table.table, key);
    return { key, ...(url ? { url } : {}) };
  };
  const changed = changedTables(changes);
  const datasets = [...new Set(changed.map((table) => table.dataset))];
  return {
    snapshot: { id: snapshot.id, createdAt: snapshot.manifest.createdAt },
    previous: changes.from,
    datasets: datasets.map((name) => ({
      name,
      tables: changed
        .filter((table) => table.dataset === name)
        .map((table) => ({
          table: table.table,
          key: table.key,
          added: table.added,
          changed: table.changed,
          removed: table.removed,
          columns: table.columns,
          ...(table.records && {
            records: {
              added: table.records.added.map((key) => record(table, key)),
              changed: table.records.changed.map(({ key, fields }) => ({ ...record(table, key), fields })),
              // Gone from the tree: no link.
              removed: table.records.removed.map((key) => ({ key })),
              truncated: table.records.truncated,
            },
          }),
          ...(table.days && { days: table.days }),
        })),
    })),
  };
}

/** Valid Atom 1.0 (RFC 4287): ids are UUID URNs, stable for a record's entry in a pull; links may be relative to the feed. */
export function atomFeed(dataset: Dataset, pulls: readonly Pull[], linkOf: LinkOf, base: string): string {
  const feed = dataset.feed!;
  const entries: string[] = [];
  for (const { snapshot, changes } of pulls) {
    const table = changes.tables.find((t) => t.dataset === dataset.name && t.table === feed.table);
    if (!table?.records) continue;
    const entry = (key: string, title: string, summary: string) => {
      const link = linkOf(dataset.name, feed.table, key);
      return [
        '  <entry>',
        `    <id>${uuidUrn(`${dataset.name}/${feed.table}/${key}@${snapshot.id}`)}</id>`,
        `    <title>${xml(title)}</title>`,
        `    <updated>${snapshot.manifest.createdAt}</updated>`,
        ...(link ? [`    <link rel="alternate" type="application/json" href="${xml(link)}"/>`] : []),
        `    <summary>${xml(summary)}</summary>`,
        '  </entry>',
      ].join('\n');
    };
    const pulled = `pulled in snapshot ${snapshot.id}`;
    for (const { key, fields } of table.records.changed) {
      const what = Object.entries(fields)
        .map(([column, change]) => `${column}: ${shown(change.old)} → ${shown(change.new)}`)
        .join('; ');
      entries.push(entry(key, `Revised ${feed.record.en} ${key}`, `${what} (${pulled}).`));
    }
    for (const key of table.records.added) entries.push(entry(key, `New ${feed.record.en} ${key}`, `Added (${pulled}).`));
  }
  const updated = pulls[0]?.snapshot.manifest.createdAt ?? new Date(0).toISOString();
  const licence = pulls[0]?.snapshot.manifest.licence;
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">',
    `  <id>${uuidUrn(`${base}/${feedPath(dataset.name)}`)}</id>`,
    `  <title>${xml(`${feed.title.en}: ${dataset.title.en}`)}</title>`,
    `  <subtitle>${xml(`Each pull's new and revised ${feed.record.en} records, newest first, from odsnap's snapshots.`)}</subtitle>`,
    `  <updated>${updated}</updated>`,
    '  <author><name>odsnap</name></author>',
    ...(licence ? [`  <rights>${xml(licence.attribution)}</rights>`] : []),
    `  <link rel="self" type="application/atom+xml" href="${xml(`${base}/${feedPath(dataset.name)}`)}"/>`,
    `  <link rel="alternate" type="application/json" href="${xml(`${base}/${CHANGES_INDEX}`)}"/>`,
    ...entries.slice(0, FEED_ENTRIES),
    '</feed>',
    '',
  ].join('\n');
}

const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** Escaped for XML text and attributes; characters XML 1.0 cannot carry at all (controls, lone surrogates) become U+FFFD. */
const xml = (text: string) =>
  text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
    .replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

/** A name-based UUID (version 5 layout over SHA-1) as a URN: the same name, the same id, in every build. */
function uuidUrn(name: string): string {
  const hex = createHash('sha1').update(`odsnap:${name}`).digest('hex').slice(0, 32).split('');
  hex[12] = '5';
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `urn:uuid:${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
