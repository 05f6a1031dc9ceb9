import { addDays } from '../../core/calendar.ts';
import type { Table } from '../../core/table.ts';
import type { ZoneOffsets } from '../../core/zoned-time.ts';
import type { Dataset } from '../vocabulary/dataset.ts';
import type { Endpoint } from '../vocabulary/endpoint.ts';
import { envelopeSeen, type EnvelopeSeen, type NextSeen, type PageFacts } from './envelope.ts';

/**
 * What a pull gives an answer kind to crawl an endpoint (scripts/pull/crawler.ts implements it):
 * requests to the upstream, units of work checkpointed in the journal, the rows earlier steps
 * fetched, and what the previous snapshot says. A kind's crawl cuts its endpoint's data into
 * units (a page, a window, a detail) and says how each table of the new snapshot is made.
 */

/** The days a parent row spans, from two of its columns (days or instants; a null end is today). */
export interface Span {
  readonly from: string;
  readonly to: string;
}

/** How a table of the new snapshot is made from this pull's rows and the previous snapshot. */
export type TablePlan =
  /** This pull's rows are the whole table. With `positions`, where each key stood in the upstream's list (see listPosition). */
  | { readonly kind: 'replace'; readonly positions?: ReadonlyMap<string, number> }
  /** This pull's rows, plus the previous rows whose key (column `key`) is in `carry`: details unchanged since. */
  | { readonly kind: 'refresh'; readonly key: string; readonly carry: ReadonlySet<string>; readonly positions?: ReadonlyMap<string, number> }
  /**
   * The previous rows, plus this pull's. Series in `cutoffs` (by seriesKey of `series` columns)
   * were fetched again from that instant on, so their previous rows from then on are replaced.
   */
  | { readonly kind: 'append'; readonly series: readonly string[]; readonly time: string; readonly cutoffs: ReadonlyMap<string, number> };

/** An answer of the upstream; without `text`, `body` is what is kept of it. */
export interface Fetched {
  readonly status: number;
  /** Parsed JSON; undefined for a 404. */
  readonly body: unknown;
  /** The JSON text as sent. */
  readonly text?: string;
  readonly url: string;
  /**
   * When the request that brought it was sent (epoch ms, the crawl's clock; of a retried request,
   * its last attempt): what the upstream answered held at some moment from then to the answer.
   */
  readonly askedAt?: number;
}

export interface FetchOptions {
  /** Resolve with status 404 instead of failing (a single resource gone since its list was read). */
  readonly notFound?: boolean;
  /** What is wrong with the body's envelope, if anything; a misshapen body is retried like a truncated one. */
  readonly shape?: (body: unknown) => string | undefined;
}

/** Where the records of one resource are in an answer. */
export interface RecordPlace {
  readonly resource: string;
  /** The field of the answer holding the records; absent when the answer is the array itself. */
  readonly field?: string;
  /** The answer is the one record (a document). */
  readonly document?: boolean;
  /** Records are in an array inside each entry of `field`; `param` is filled from the entry's field `from`. */
  readonly within?: { readonly field: string; readonly param: string; readonly from: string };
  /** Fields of each record that other places store (child arrays), left out of its `extra`. */
  readonly ignore?: readonly string[];
  /** Validated, not stored: a list form whose full resource is fetched on its own. */
  readonly checkOnly?: boolean;
  /**
   * The records answer a from..to window (the request's `from` and `to` parameters): what they
   * show of the endpoint's range rule is learned, and records two windows both return are
   * stored once (see scripts/pull/range-rules.ts). `time` and `until` are the row's columns.
   */
  readonly window?: { readonly endpoint: string; readonly time: string; readonly until?: string };
}

/**
 * What an endpoint's answers show of the upstream beyond their records, where the spec leaves it
 * room: what it defaults to (the page size of a list asked without `limit`), and keys in the
 * envelope the spec does not name. A unit says so in its meta (`observed`), so a resumed pull
 * knows it too; the snapshot keeps what holds for every answer, and the mirror answers with it.
 */
export interface Observed {
  /** The endpoint's full path. */
  readonly endpoint: string;
  /** Query values the upstream applies when a request leaves them out. */
  readonly defaults?: Readonly<Record<string, string>>;
  /** Envelopes as written (see envelope.ts), to learn the upstream's from. */
  readonly envelopes?: readonly EnvelopeSeen[];
  /** `next` links as written, with the query asked for the page before (see envelope.ts). */
  readonly nexts?: readonly NextSeen[];
  /** What asking the upstream showed of its range rule (see range-probe.ts). */
  readonly range?: RangeFacts;
  /** How it wrote offsets in the zones a window was asked in (see range-probe.ts). */
  readonly zoneOffsets?: Partial<ZoneOffsets>;
}

/** What a range of days returns, as the upstream answered windows asked to tell (see range-probe.ts). */
export interface RangeFacts {
  /** A row that starts before the window was returned: rows are not chosen by their start. */
  readonly startsBefore?: boolean;
  /** A row that ends after the window was returned: rows are not chosen by their end. */
  readonly endsAfter?: boolean;
  /** The row at the next midnight was returned with the day before it. */
  readonly toInclusive?: boolean;
}

/** The envelope of an answer as written, in the list Observed keeps (empty for an answer that has none). */
export function envelopesOf(got: Fetched, endpoint: Endpoint, facts: PageFacts = {}): EnvelopeSeen[] {
  const seen = envelopeSeen(got.text ?? JSON.stringify(got.body), endpoint, facts);
  return seen ? [seen] : [];
}

/**
 * The upstream answered what v1 does not allow, or past a limit of the pull that the upstream
 * cannot lift (a total no list holds, pages without end): its unit fails at once, not retried,
 * with the request and the limit named.
 */
export class ProtocolError extends Error {}

/** What a crawl takes from an upstream at most, whatever it says (see scripts/pull/limits.ts). */
export interface CrawlLimits {
  /** The largest `pagination.total` an offset-paged list may report (`--max-records`). */
  readonly maxRecords: number;
  /** Pages of one window of a numbered-page list (`--max-pages`). */
  readonly maxPages: number;
}

/** What a unit of work found: its answers and where the records are in them, and what later units need to know. */
export interface Found<M> {
  readonly meta: M & { readonly observed?: Observed };
  readonly answers?: readonly unknown[];
  readonly batches?: readonly unknown[];
}

export interface Crawl {
  readonly dataset: Dataset;
  /** The pull's "today", a UTC day. */
  readonly today: string;
  readonly limits: CrawlLimits;
  endpoint(path: string): Endpoint;
  /** The table a resource is stored in. */
  table(resource: string): Table;
  /** How a table of the new snapshot is made. */
  plan(table: string, plan: TablePlan): void;
  /** A series table keeps its previous rows before the cutoffs; without a previous snapshot to build on, the pull's rows are all. */
  appendOrReplace(series: readonly string[], time: string, cutoffs: ReadonlyMap<string, number>): TablePlan;
  /** Units of work now known (for progress). */
  planned(units: number): void;
  /** A unit of work finished (for progress). */
  done(): void;
  /** Whether a unit is finished (in the journal). */
  has(unitKey: string): boolean;
  /**
   * Runs a unit unless the journal has it; `replay` rebuilds in-memory state from a journalled
   * unit's meta, and may throw (a meta no longer valid, from an older odsnap): the unit is then run again.
   */
  unit<M>(key: string, work: () => Promise<Found<M>>, replay?: (meta: M) => void): Promise<M>;
  get(path: string, query: Readonly<Record<string, string | number>>, options: FetchOptions): Promise<Fetched>;
  /** A unit's result from its answers (each holding records at `places`), kept as the text they came in. */
  found<M extends { records?: number }>(
    answers: Fetched | readonly Fetched[],
    path: string,
    params: Readonly<Record<string, string>>,
    places: readonly RecordPlace[],
    meta: M,
  ): Found<M>;
  /** Runs `work` over items, a few at a time; a failed item is recorded and the rest go on, unless the upstream is down. */
  each<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void>;
  log(event: string, fields: Record<string, unknown>): void;
  /** A failure of the pull, said in its summary. */
  failure(message: string): void;
  /** Keeps the rows of a finished unit's records of a resource, for later steps to fan out over. */
  keepRows(unitKey: string, resource: string): void;
  /** The rows of a finished unit's records. */
  rowsOf(unitKey: string): Record<string, unknown>[];
  /** The rows of answers fetched now (not kept), their records at `place`. */
  rowsIn(answers: readonly Fetched[], path: string, params: Readonly<Record<string, string>>, place: RecordPlace): Record<string, unknown>[];
  /** The rows an earlier step kept of a resource. */
  parentsOf(resource: string): Record<string, unknown>[];
  /** The latest `time` (epoch ms) of each series of the previous snapshot, by seriesKey of `columns`. */
  watermarks(table: string, columns: readonly string[], time: string): Promise<Map<string, number>>;
  /** Fingerprints of the previous snapshot's rows of a resource as the upstream listed each, by the record field `id`. */
  fingerprints(resource: string, id: string): Promise<Map<string, string>>;
  /** The UTC days a parent row spans, a day wider on each side. */
  span(row: Record<string, unknown>, span: Span): [string, string];
}

/** Days re-fetched before a series' latest reading, for data that arrives late. */
export const OVERLAP_DAYS = 2;

export const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

export const objectShape = (body: unknown) => (isObject(body) ? undefined : 'not an object');

/** The identity of a series: the values of its parent columns. */
export const seriesKey = (values: readonly unknown[]): string => JSON.stringify(values.map((v) => (v === null || v === undefined ? null : String(v))));

/** Days from..to in windows of at most `days`, oldest first. */
export function forwardWindows(from: string, to: string, days: number): [string, string][] {
  const windows: [string, string][] = [];
  for (let start = from; start <= to; start = addDays(start, days)) {
    const end = addDays(start, days - 1);
    windows.push([start, end < to ? end : to]);
  }
  return windows;
}

/** What is wrong with a crawl step, in the terms every kind's check shares. */
export interface StepScope {
  readonly endpoints: readonly Endpoint[];
  readonly resources: Readonly<Record<string, { table: string; parse?: unknown }>>;
  columnsOf(resource: string): readonly string[] | undefined;
}

/** Problems of a resource a step stores: it must be declared, with a parse function. */
export function storedProblems(scope: StepScope, resource: string): string[] {
  if (!scope.resources[resource]) return [`stores resource "${resource}", which the data set does not declare`];
  if (!scope.resources[resource].parse) return [`stores resource "${resource}", which has no parse function`];
  return [];
}

/** Problems of a column a step reads of a resource's table. */
export function readColumnProblems(scope: StepScope, resource: string, name: string): string[] {
  const columns = scope.columnsOf(resource);
  return columns && !columns.includes(name) ? [`reads column "${name}" of ${resource}, which its table does not have`] : [];
}
