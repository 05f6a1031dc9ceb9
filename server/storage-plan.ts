import type { Snapshot } from '../core/snapshot/read.ts';
import type { Table } from '../core/table.ts';
import { kindOf } from '../datasets/answers/index.ts';
import type { Storage } from '../datasets/answers/kind.ts';
import type { Dataset, Resource } from '../datasets/vocabulary/dataset.ts';
import type { Endpoint } from '../datasets/vocabulary/endpoint.ts';

/**
 * What the serving database holds of each table (see serve-database.ts), from what the kinds of
 * the data set's endpoints ask of it (their `storage`): the tables requests page through or look
 * up by key, the columns derived for them, the resources kept rendered, the columns indexed, and
 * what the kinds keep in memory and in the server's process once it is open.
 */

/** Tables this small are stored whole, whatever answers them: reading them is then a lookup. */
const SMALL_TABLE_BYTES = 4 * 1024 * 1024;

/** What each endpoint's kind asks the database to keep, with the endpoint. */
function needs(dataset: Dataset) {
  return dataset.endpoints.flatMap((endpoint) => {
    const storage = kindOf(endpoint.answer).server.storage?.(endpoint.answer);
    return storage ? [{ endpoint, storage }] : [];
  });
}

const inTable = (dataset: Dataset, table: Table) => (resource: string) => dataset.resources[resource]?.table === table.name;

/** What the kinds ask of the table: each ask of one sort (`derived`, `inMemory`, `inProcess`) on a resource in it, with its endpoint. */
function asksOn<K extends 'derived' | 'inMemory' | 'inProcess'>(
  dataset: Dataset,
  table: Table,
  sort: K,
): { endpoint: Endpoint; ask: NonNullable<Storage[K]> }[] {
  return needs(dataset).flatMap(({ endpoint, storage }) => {
    const ask = storage[sort];
    return ask && inTable(dataset, table)(ask.resource) ? [{ endpoint, ask: ask as NonNullable<Storage[K]> }] : [];
  });
}

/**
 * The columns of a table its kinds keep in memory, copied from the stored table (a page's filter
 * columns, with what they derive). The rows themselves are then read from the stored table by row
 * number. Undefined when no kind asks for a copy.
 */
export function inMemoryColumns(dataset: Dataset, table: Table): string[] | undefined {
  const asks = asksOn(dataset, table, 'inMemory');
  return asks.length ? [...new Set(asks.flatMap(({ ask }) => ask.columns))] : undefined;
}

/** One read of what kinds keep in the server's process from a table, the endpoints that get it back, and the columns it reads (all of theirs). */
export interface InProcessRead {
  readonly read: NonNullable<Storage['inProcess']>['read'];
  readonly columns: readonly string[];
  readonly endpoints: readonly Endpoint[];
}

/** What the kinds keep in the server's process from a table: one read per reading function, over every column its endpoints ask for. */
export function inProcessReads(dataset: Dataset, table: Table): InProcessRead[] {
  const byRead = new Map<InProcessRead['read'], { columns: string[]; endpoints: Endpoint[] }>();
  for (const { endpoint, ask } of asksOn(dataset, table, 'inProcess')) {
    let found = byRead.get(ask.read);
    if (!found) byRead.set(ask.read, (found = { columns: [], endpoints: [] }));
    found.columns.push(...ask.columns);
    found.endpoints.push(endpoint);
  }
  return [...byRead].map(([read, { columns, endpoints }]) => ({ read, columns: [...new Set(columns)], endpoints }));
}

/**
 * Resources stored rendered, as JSON text: those the kinds ask for (pages and items), when none
 * of the endpoints that ask takes a `timezone`, so that their JSON depends on the row and the
 * links' base alone. They are rendered once, by the same function, with a placeholder for the
 * base, into record files (see recordedResources). A page is then spliced from texts, and no row
 * is decoded, rendered or serialized per request (for a page of transactions, that was a third of
 * the answer); an item is one text found by its key, with no statement at all.
 */
export function renderedResources(dataset: Dataset, table: Table): Resource[] {
  const fixed = new Map<string, boolean>();
  for (const { endpoint, storage } of needs(dataset)) {
    const resource = storage.rendered?.resource;
    if (resource === undefined || !inTable(dataset, table)(resource)) continue;
    fixed.set(resource, (fixed.get(resource) ?? true) && !('timezone' in endpoint.params));
  }
  return [...fixed].filter(([, isFixed]) => isFixed).map(([name]) => dataset.resources[name]!);
}

/**
 * Every resource stored rendered, with the keys its items are found by (none for one only pages
 * answer with): written as record files (record-store.ts), beside the serving database, so that
 * an item is answered without a statement, and a page's rows are read by row number.
 */
export function recordedResources(dataset: Dataset, table: Table): { readonly resource: Resource; readonly keys: readonly string[] }[] {
  return renderedResources(dataset, table).map((resource) => ({
    resource,
    keys: [...new Set(needs(dataset).flatMap(({ storage }) => (storage.rendered?.resource === resource.name ? storage.rendered.keys : [])))],
  }));
}

/**
 * Columns rows are looked up by, one value at a time (items not answered from record files, the
 * parents of series). They are indexed (ART), so a lookup fetches one row instead of scanning every
 * id of the table. The
 * lookups' SQL is unchanged: DuckDB uses the index for an equality on the column.
 */
export function lookupColumns(dataset: Dataset, table: Table): string[] {
  const rendered = new Set(renderedResources(dataset, table).map((r) => r.name));
  const columns = needs(dataset).flatMap(({ storage }) =>
    (storage.lookups ?? []).flatMap((lookup) =>
      inTable(dataset, table)(lookup.resource) && !(lookup.unlessRendered && rendered.has(lookup.resource)) ? lookup.columns : [],
    ),
  );
  return [...new Set(columns)];
}

/** A series kept rendered (see series-store.ts): what names its rows, and the files they are in. */
export interface KeptSeries {
  readonly resource: Resource;
  /** The columns whose values name a series, in order. */
  readonly columns: readonly string[];
  readonly time: string;
  /** The files' name, without extensions, beside the record files. */
  readonly name: string;
}

/** Columns whose values name a series as the server finds them (a parent's key, turned to text). */
const NAMING_KINDS: ReadonlySet<string> = new Set(['varchar', 'integer']);

/**
 * The series kept rendered from a table, one per resource and naming columns the kinds ask for:
 * where the columns naming a series are text or integers (whose text JS and DuckDB write alike)
 * and the time is an instant.
 */
export function keptSeries(dataset: Dataset, table: Table): KeptSeries[] {
  const kept = new Map<string, KeptSeries>();
  for (const { storage } of needs(dataset)) {
    const ask = storage.series;
    if (!ask || !inTable(dataset, table)(ask.resource)) continue;
    if (!ask.columns.every((column) => NAMING_KINDS.has(table.columns[column]?.kind ?? '')) || table.columns[ask.time]?.kind !== 'instant') continue;
    const name = `${ask.resource}@${ask.columns.join('+')}`;
    kept.set(name, { resource: dataset.resources[ask.resource]!, columns: ask.columns, time: ask.time, name });
  }
  return [...kept.values()];
}

export interface StoredTable {
  /** SQL of the columns made for filters, `… AS name`. */
  readonly derived: string[];
}

/** Whether a table is stored, and with what: tables the kinds ask for, and any small one. */
export function storagePlan(dataset: Dataset, table: Table, snapshot: Snapshot): StoredTable | undefined {
  const asked = needs(dataset).some(({ storage }) => (storage.stored ?? []).some(inTable(dataset, table)));
  const bytes = snapshot.manifest.datasets[dataset.name]!.tables[table.name]!.files.reduce((n, f) => n + f.bytes, 0);
  if (!asked && bytes > SMALL_TABLE_BYTES) return undefined;
  return { derived: [...new Set(asksOn(dataset, table, 'derived').flatMap(({ ask }) => ask.columns))] };
}
