import type { Snapshot } from '../core/snapshot/read.ts';
import type { Table } from '../core/table.ts';
import { kindOf } from '../datasets/answers/index.ts';
import type { Storage } from '../datasets/answers/kind.ts';
import type { Dataset, Resource } from '../datasets/vocabulary/dataset.ts';

/**
 * What the serving database holds of each table (see serve-database.ts), from what the kinds of
 * the data set's endpoints ask of it (their `storage`): the tables requests page through or look
 * up by key, the columns page filters read, the resources kept rendered, the columns indexed.
 */

/** Tables this small are stored whole, whatever answers them: reading them is then a lookup. */
const SMALL_TABLE_BYTES = 4 * 1024 * 1024;

/** What each endpoint's kind asks the database to keep, with the endpoint. */
function needs(dataset: Dataset) {
  return dataset.endpoints.flatMap((endpoint) => {
    const storage = kindOf(endpoint.answer).storage?.(endpoint.answer);
    return storage ? [{ endpoint, storage }] : [];
  });
}

const inTable = (dataset: Dataset, table: Table) => (resource: string) => dataset.resources[resource]?.table === table.name;

/** What filters of paged resources of the table need, as their kinds say. */
const filteredOf = (dataset: Dataset, table: Table): NonNullable<Storage['filtered']>[] =>
  needs(dataset).flatMap(({ storage }) => (storage.filtered && inTable(dataset, table)(storage.filtered.resource) ? [storage.filtered] : []));

/**
 * The columns a table's page filters read, with what they derive: the part of a paged table kept
 * in memory. The page's rows themselves are then read from the stored table by row number.
 */
export function filterColumns(dataset: Dataset, table: Table): string[] | undefined {
  const filtered = filteredOf(dataset, table);
  return filtered.length ? [...new Set(filtered.flatMap((f) => f.columns))] : undefined;
}

/**
 * What a table's kind keeps in the server's process, where it keeps anything: its columns that
 * filters compare with a value (equalities and ranges), and how the kind reads them.
 */
export function keptInProcess(dataset: Dataset, table: Table): { readonly columns: string[]; readonly read: NonNullable<NonNullable<Storage['filtered']>['keep']> } | undefined {
  const filtered = filteredOf(dataset, table);
  const read = filtered.find((f) => f.keep)?.keep;
  return read && { columns: [...new Set(filtered.flatMap((f) => f.scanned))], read };
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
    (storage.lookups ?? []).flatMap((lookup) => (inTable(dataset, table)(lookup.resource) && !(lookup.unlessRendered && rendered.has(lookup.resource)) ? lookup.columns : [])),
  );
  return [...new Set(columns)];
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
  return { derived: [...new Set(filteredOf(dataset, table).flatMap((f) => f.derived))] };
}
