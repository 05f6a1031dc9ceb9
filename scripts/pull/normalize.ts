import { z } from 'zod';
import type { Dataset, Resource } from '../../datasets/vocabulary/dataset.ts';
import { patchOf } from '../../datasets/vocabulary/parse.ts';
import { relativeLinks, renderContext, type RenderContext } from '../../datasets/vocabulary/render.ts';
import type { Table } from '../../core/table.ts';
import type { Batch, Quarantined } from './journal.ts';

/**
 * How the records of an upstream's answers become stored rows. A crawl keeps answers as they came
 * (so it spends its time fetching); the snapshot is built by normalizing them: each record is
 * validated against its resource's schema, parsed into its table's columns, and whatever it holds
 * beyond what that row renders back (fields the spec does not name, other spellings) is kept in
 * `extra`, so nothing the upstream sent is lost. A record that fails validation is not a row:
 * it is quarantined, verbatim, with the reason.
 */

export type Normalized =
  | { readonly ok: true; readonly table: Table; readonly row: Record<string, unknown> }
  | { readonly ok: false; readonly quarantined: Quarantined };

export class Normalizer {
  private readonly context: RenderContext;
  private readonly json: (value: unknown) => unknown;

  constructor(
    private readonly dataset: Dataset,
    private readonly upstream: string,
  ) {
    this.context = renderContext({ baseUrl: upstream });
    this.json = (value) => relativeLinks(value, upstream);
  }

  resource(name: string): Resource {
    const resource = this.dataset.resources[name];
    if (!resource) throw new Error(`${this.dataset.name} has no resource ${name}`);
    return resource;
  }

  /** The table a resource is stored in; only for resources with a parse function. */
  table(resource: string): Table {
    if (!this.resource(resource).parse) throw new Error(`${this.dataset.name}: resource ${resource} cannot be stored from an upstream record`);
    return this.dataset.tables[this.resource(resource).table]!;
  }

  /** Calls `each` for every record of a batch: its row, or its quarantine entry. */
  batch(batch: Batch, answer: unknown, each: (result: Normalized) => void): void {
    const resource = this.resource(batch.resource);
    const table = this.dataset.tables[resource.table]!;
    const ignore = batch.ignore ? new Set(batch.ignore) : undefined;
    for (const [record, params] of recordsOf(batch, answer)) {
      const checked = resource.schema.safeParse(record);
      if (!checked.success) {
        each({ ok: false, quarantined: { resource: batch.resource, url: batch.url, reason: z.prettifyError(checked.error).replace(/\n\s*/g, ' '), record } });
        continue;
      }
      if (batch.checkOnly || !resource.parse) continue;
      let row: Record<string, unknown>;
      try {
        row = resource.parse(checked.data, { params, path: batch.path, fetchedAt: batch.fetchedAt, json: this.json });
      } catch (error) {
        each({ ok: false, quarantined: { resource: batch.resource, url: batch.url, reason: `cannot be stored: ${(error as Error).message}`, record } });
        continue;
      }
      row.extra = null;
      const patch = patchOf(record, resource.render(row, this.context), ignore);
      if (patch !== undefined) row.extra = relativeLinks(patch, this.upstream);
      each({ ok: true, table, row });
    }
  }
}

/** The records of a batch in its answer, each with the request's parameters (plus any its entry fills). */
function* recordsOf(batch: Batch, answer: unknown): Generator<[unknown, Readonly<Record<string, string>>]> {
  if (batch.document) {
    yield [answer, batch.params];
    return;
  }
  const list = batch.field === undefined ? answer : (answer as Record<string, unknown>)?.[batch.field];
  if (!Array.isArray(list)) return;
  if (!batch.within) {
    for (const record of list) yield [record, batch.params];
    return;
  }
  const { field, param, from } = batch.within;
  for (const entry of list) {
    const inner = (entry as Record<string, unknown>)?.[field];
    if (!Array.isArray(inner)) continue;
    const params = { ...batch.params, [param]: String((entry as Record<string, unknown>)[from]) };
    for (const record of inner) yield [record, params];
  }
}

/** Keeps the first row of each key (or, in a table without one, of each identical row). */
export class Dedupe {
  private readonly seen = new Set<string>();
  private readonly key: readonly string[] | undefined;

  constructor(table: Table) {
    this.key = table.key;
  }

  keep(row: Record<string, unknown>): boolean {
    let key: string;
    if (!this.key) key = JSON.stringify(row);
    else {
      key = String(row[this.key[0]!]);
      for (let i = 1; i < this.key.length; i++) key += `\u0001${row[this.key[i]!]}`;
    }
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    return true;
  }
}
