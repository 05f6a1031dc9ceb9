import { z } from 'zod';
import { kindOf } from '../../datasets/answers/index.ts';
import type { Dataset, Resource } from '../../datasets/vocabulary/dataset.ts';
import { patchOf } from '../../datasets/vocabulary/parse.ts';
import { elementSpans, memberSpan, minify, type Span } from '../../datasets/vocabulary/json-text.ts';
import { relativeLinks, renderContext, type RenderContext } from '../../datasets/vocabulary/render.ts';
import { relativeText } from '../../datasets/vocabulary/written.ts';
import type { Table } from '../../core/table.ts';
import type { Batch, Quarantined } from './journal-line.ts';

/**
 * How the records of an upstream's answers become stored rows. A crawl keeps answers as they came
 * (so it spends its time fetching); the snapshot is built by normalizing them: each record is
 * validated against its resource's schema and parsed into its table's columns. Where its row would
 * render otherwise than the upstream wrote it (key order, number text, instants, links, fields
 * the spec does not name), its text is kept as written in `upstream_json`, which the mirror
 * serves; what it holds beyond the rendered row is also kept in `extra`, a merge patch for SQL.
 * A record that fails validation is not a row: it is quarantined, verbatim, with the reason.
 */

export type Normalized =
  | { readonly ok: true; readonly table: Table; readonly row: Record<string, unknown> }
  | { readonly ok: false; readonly quarantined: Quarantined };

/** What a pull could not find that a filter needs, by filter: how many records, and one of them. */
export type Unread = Map<string, { records: number; example: string }>;

export class Normalizer {
  private readonly context: RenderContext;
  private readonly json: (value: unknown) => unknown;
  /** Resources whose instants are shown in the time zone a request asks for (see patchOf). */
  private readonly zoned: ReadonlySet<string>;
  readonly unread: Unread = new Map();

  /** Where the upstream's links point: the address it writes them on (see public-base.ts), and the one pulled from. */
  private readonly bases: readonly string[];

  constructor(
    private readonly dataset: Dataset,
    upstream: { readonly pulledFrom: string; readonly publicBase?: string },
  ) {
    this.bases = [...new Set([upstream.publicBase ?? upstream.pulledFrom, upstream.pulledFrom])];
    this.context = renderContext({ baseUrl: this.bases[0]! });
    this.json = (value) => relativeLinks(value, this.bases);
    this.zoned = new Set(dataset.endpoints.filter((e) => 'timezone' in e.params).map((e) => kindOf(e.answer).reads(e.answer)[0]!));
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

  /** Calls `each` for every record of a batch: its row, or its quarantine entry. `text` is the answer as it came. */
  batch(batch: Batch, answer: unknown, text: string | undefined, each: (result: Normalized) => void): void {
    const resource = this.resource(batch.resource);
    const table = this.dataset.tables[resource.table]!;
    const ignore = batch.ignore ? new Set(batch.ignore) : undefined;
    const zoned = this.zoned.has(batch.resource);
    const positioned = 'list_position' in table.columns && !batch.document;
    const unread = (filter: string) => this.noteUnread(filter, batch.url);
    const texts = text === undefined || batch.checkOnly ? undefined : recordTextsOf(batch, text);
    let n = -1;
    for (const [record, params, index] of recordsOf(batch, answer)) {
      n++;
      const checked = resource.schema.safeParse(record);
      if (!checked.success) {
        each({ ok: false, quarantined: { resource: batch.resource, url: batch.url, reason: z.prettifyError(checked.error).replace(/\n\s*/g, ' '), record } });
        continue;
      }
      if (batch.checkOnly || !resource.parse) continue;
      let row: Record<string, unknown>;
      try {
        row = resource.parse(checked.data, { params, path: batch.path, fetchedAt: batch.fetchedAt, json: this.json, unread });
      } catch (error) {
        each({ ok: false, quarantined: { resource: batch.resource, url: batch.url, reason: `cannot be stored: ${(error as Error).message}`, record } });
        continue;
      }
      row.extra = null;
      row.upstream_json = null;
      // Where it stood in the upstream's list; a list paged by offset says so by key instead (see TablePlan).
      if (positioned) row.list_position = index;
      const rendered = resource.render(row, this.context);
      const own = texts?.[n];
      const written = own === undefined ? undefined : minify(own);
      if (written !== undefined && written !== JSON.stringify(rendered)) row.upstream_json = relativeText(written, this.bases);
      const patch = patchOf(record, rendered, ignore, zoned);
      if (patch !== undefined) row.extra = relativeLinks(patch, this.bases);
      each({ ok: true, table, row });
    }
  }

  /** A value with the upstream's links made relative to {base_url}, as records' are. */
  relative(value: unknown): unknown {
    return relativeLinks(value, this.bases);
  }

  /** A JSON text with the upstream's links made relative to {base_url}, the rest as written. */
  relativeText(text: string): string {
    return relativeText(text, this.bases);
  }

  private noteUnread(filter: string, url: string): void {
    const found = this.unread.get(filter);
    if (found) found.records++;
    else this.unread.set(filter, { records: 1, example: url });
  }
}

/**
 * The records of a batch in its answer, each with the request's parameters (plus any its entry
 * fills) and its place in the array it came in.
 */
export function* recordsOf(batch: Batch, answer: unknown): Generator<[unknown, Readonly<Record<string, string>>, number]> {
  if (batch.document) {
    yield [answer, batch.params, 0];
    return;
  }
  const list = batch.field === undefined ? answer : (answer as Record<string, unknown>)?.[batch.field];
  if (!Array.isArray(list)) return;
  if (!batch.within) {
    for (let i = 0; i < list.length; i++) yield [list[i], batch.params, i];
    return;
  }
  const { field, param, from } = batch.within;
  for (const entry of list) {
    const inner = (entry as Record<string, unknown>)?.[field];
    if (!Array.isArray(inner)) continue;
    const params = { ...batch.params, [param]: String((entry as Record<string, unknown>)[from]) };
    for (let i = 0; i < inner.length; i++) yield [inner[i], params, i];
  }
}

/** The texts of a batch's records in its answer's text, in the order recordsOf gives the records. */
export function recordTextsOf(batch: Batch, text: string): string[] {
  if (batch.document) return [text];
  const cut = (spans: readonly Span[], within: string = text) => spans.map(([start, end]) => within.slice(start, end));
  const list = batch.field === undefined ? elementSpans(text, 0) : spansAt(text, memberSpan(text, 0, batch.field));
  if (!batch.within) return cut(list);
  const texts: string[] = [];
  for (const [start, end] of list) {
    const entry = text.slice(start, end);
    texts.push(...cut(spansAt(entry, memberSpan(entry, 0, batch.within.field)), entry));
  }
  return texts;
}

const spansAt = (text: string, span: Span | undefined): Span[] => (span ? elementSpans(text, span[0]) : []);

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
