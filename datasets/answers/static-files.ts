import type { RangeRule } from '../../core/snapshot/manifest.ts';
import type { Narrowing } from '../../core/snapshot/read.ts';
import type { Dataset, Resource } from '../vocabulary/dataset.ts';
import type { Endpoint } from '../vocabulary/endpoint.ts';
import type { RenderContext } from '../vocabulary/render.ts';
import type { Query } from './custom/declaration.ts';
import type { Envelope } from './envelope.ts';
import { escapeFileName } from './file-names.ts';

/**
 * What the static builder gives an answer kind to make an endpoint's files (scripts/static/
 * implements it), what the kind gives back, and where each file goes. A file holds the body the
 * server gives for the request it stands for, rendered by the same functions, made from ordered
 * scans of whole tables (or of one series at a time) rather than a query per file.
 *
 * Files made from many rows carry an input fingerprint (of the rows they show, from DuckDB's row
 * hashes, and of their place: offset and total, page, month). When the tree in use holds a file
 * made from the same input, the file is carried over instead of rendered, so a rebuild after a
 * pull renders only what the pull changed. Files come in the same order either way.
 */

/**
 * A file's place among its endpoint's files beyond the path's values: the request with no query
 * (`whole`), or a page, day or month of it, as the endpoint's kind lays its files out.
 */
export interface FileUnit {
  readonly kind: string;
  readonly [detail: string]: unknown;
}

export const WHOLE: { readonly kind: 'whole' } = { kind: 'whole' };

/**
 * Where a kind's files go: a file is the request's path with `.json`, and for requests that take
 * a range or a page, more segments naming the unit, e.g. `/offset/200` or `/2024-05-01/2`.
 */
export interface TreeLayout<U extends FileUnit = FileUnit> {
  /** Path segments after the endpoint's path; none for the whole request. */
  segments(unit: U): string[];
  /** The unit of a file, from the segments after the endpoint's path. */
  unitOf(segments: readonly string[]): U;
  /** The query the unit's file stands for. */
  query(unit: U): Record<string, string>;
  /** The unit a request's query asks for (`version=v1` and `timezone=UTC` dropped), if a file holds it. */
  unitFor(query: Readonly<Record<string, string>>): U | undefined;
  /** The pattern of the files after the endpoint's path, and of the query they stand for; placeholders in braces. */
  readonly pattern: { readonly file: string; readonly query: string };
  /** What the tree's index says of these files, if anything. */
  readonly about?: string;
}

/** Files of the request with no query alone: lists, items, documents, composed answers. */
export const wholeLayout: TreeLayout = {
  segments: () => [],
  unitOf: () => WHOLE,
  query: () => ({}),
  unitFor: (query) => (Object.keys(query).length ? undefined : WHOLE),
  pattern: { file: '', query: '' },
};

/** What a kind yields for the static tree (see TreeFacet.files), told apart by `type`. */
export type StaticFile =
  /**
   * Rendered: its body, and the input it was made from when it has one; `endsWith`: the end of
   * the body's JSON that a later build may replace (a page's pagination).
   */
  | { readonly type: 'rendered'; readonly path: string; readonly body: unknown; readonly input?: string; readonly endsWith?: string; readonly segment?: string }
  /** Unchanged since the tree in use: the files there are kept, in a run (most of a rebuild is runs of thousands). */
  | { readonly type: 'carried'; readonly files: readonly CarriedFile[] }
  /**
   * The segments the endpoint's files come in, each with the fingerprint of what its files are
   * made from: those `carried` are kept whole from the tree in use; the files of the others follow,
   * each naming its segment.
   */
  | { readonly type: 'segments'; readonly segments: readonly SegmentOfFiles[]; readonly places: number }
  /**
   * The file of the tree in use with its ending replaced: a page whose rows are unchanged but
   * whose envelope (the list's total) is not, so the rows are not read and rendered again.
   */
  | { readonly type: 'new-ending'; readonly path: string; readonly ending: { readonly was: string; readonly now: string }; readonly input: string }
  /**
   * The file of the tree in use with rows added before its ending: a month of a series whose rows
   * so far are unchanged, so only the rows after them are read and rendered.
   */
  | { readonly type: 'appended'; readonly path: string; readonly extend: { readonly ending: string; readonly insert: string }; readonly input: string };

export interface CarriedFile {
  readonly path: string;
  /** What the file was made from, as the tree in use lists it. */
  readonly input: string;
  readonly segment?: string;
}

export interface SegmentOfFiles {
  readonly key: string;
  readonly print: string;
  readonly files: number;
  /** Its place among the endpoint's `places` (a bucket): listings group segments by place. */
  readonly place: number;
  readonly carried: boolean;
}

export interface StreamOptions {
  readonly order?: readonly string[];
  readonly among?: { readonly column: string; readonly values: readonly string[] };
  readonly window?: { readonly offset: number; readonly limit: number };
  /** Each row with its print and bucket (ROW_PRINT, ROW_BUCKET), of `buckets` alone if given, in no order. */
  readonly withPrints?: { readonly prints: RowPrints; readonly buckets?: readonly number[] };
}

/** How a table's rows are printed, for StreamOptions.withPrints (see TreePrints.rowPrintsOf): by their key's bucket and all their columns. */
export interface RowPrints {
  readonly keyColumn: string;
}

/** The fields a row streamed withPrints has besides its columns. */
export const [ROW_PRINT, ROW_BUCKET] = ['__print', '__bucket'] as const;

export type PrintsWanted =
  | { readonly kind: 'buckets'; readonly resource: string; readonly keyColumn: string }
  | { readonly kind: 'pages'; readonly resource: string; readonly pageRows: number };

export interface BucketPrint {
  readonly bucket: number;
  readonly rows: number;
  readonly print: string;
}

export interface PagePrint {
  readonly rows: number;
  readonly print: string;
}

export interface GroupPrint {
  readonly values: string[];
  readonly unit: string;
  readonly rows: number;
  readonly print: string;
  /** The time of the group's last row, epoch ms. */
  readonly last: number;
  /** The time of its first row. */
  readonly first: number;
}

/**
 * Which rows a group of a day or month holds, where rows are grouped by the range of days its
 * file stands for: those its from..to range returns by `rule` (see time-range.ts), `until`
 * being the column of a row's end where rows span time. A row may then be in two groups.
 */
export interface GroupRange {
  readonly rule: RangeRule;
  readonly until?: string;
}

/** A snapshot's rows as the static builder reads them (scripts/static/snapshot-rows.ts). */
export interface TreeRows {
  resource(dataset: Dataset, name: string): Resource;
  /** A resource's rows, narrowed, in `order` (default: the table's row order), batch by batch. */
  stream(dataset: Dataset, resourceName: string, narrow?: Narrowing, options?: StreamOptions): AsyncGenerator<Record<string, unknown>[]>;
  /** Every row of a (small) resource's table, narrowed, in row order. */
  all(dataset: Dataset, resourceName: string, narrow?: Narrowing): Promise<Record<string, unknown>[]>;
  /** What custom answers read, as the server gives it to them. */
  queryFor(dataset: Dataset, context: RenderContext): Query;
}

/**
 * Fingerprints of a snapshot's rows (scripts/static/snapshot-prints.ts): a file whose rows have the
 * print the tree in use made it from is carried over unrendered.
 */
export interface TreePrints {
  /** How many buckets of keys items are fingerprinted in. */
  readonly buckets: number;
  prints(dataset: Dataset, wanted: Extract<PrintsWanted, { kind: 'buckets' }>): Promise<BucketPrint[]>;
  prints(dataset: Dataset, wanted: Extract<PrintsWanted, { kind: 'pages' }>): Promise<PagePrint[]>;
  /** The key and print of each row in these buckets (all by default), in row order. */
  rowPrints(dataset: Dataset, resourceName: string, keyColumn: string, buckets?: readonly number[]): Promise<{ key: string; print: string; bucket: number }[]>;
  /** Where the rows' prints are, to read rows with them (StreamOptions.withPrints). */
  rowPrintsOf(dataset: Dataset, resourceName: string, keyColumn: string): Promise<RowPrints>;
  /**
   * Per group of rows (equal `by` columns, the same UTC day or month of `time`, or with `range`,
   * each day or month whose range returns them): their count and fingerprint.
   */
  groupPrints(dataset: Dataset, resourceName: string, by: readonly string[], time: string, unit: 'day' | 'month', range?: GroupRange): Promise<GroupPrint[]>;
  /** Per group of rows with `time` in [from, to): the fingerprint groupPrints gives of those rows alone. */
  printsBetween(dataset: Dataset, resourceName: string, by: readonly string[], from: number, to: number): Promise<Map<string, string>>;
}

export interface FileSource {
  readonly dataset: Dataset;
  readonly endpoint: Endpoint;
  readonly rows: TreeRows;
  readonly prints: TreePrints;
  readonly context: RenderContext;
  /** The input the tree in use made a file (of a segment) from, if it was made the same way. */
  readonly previousInput: (path: string, segment?: string) => string | undefined;
  /** The print of a segment of the tree in use, if it was made the same way. */
  readonly previousSegment: (key: string) => string | undefined;
  /** Most rows a scan of every changing series may hold (see the series kind's files); default 1,000,000. */
  readonly seriesInOneScan?: number;
  /** Most rows of changed item buckets whose prints are held (see the item kind's files); default 100,000. */
  readonly itemPrintsHeld?: number;
  /** What the upstream defaults to for this endpoint (see the manifest's endpoints). */
  readonly defaults: Defaults;
  /** Which rows the endpoint's from..to ranges return, as the snapshot records it (see rangeRuleOf); absent: the sample city's rule. */
  readonly range?: RangeRule;
  /** The endpoint's envelope as its upstream writes it, links resolved for the tree (see envelope.ts). */
  readonly envelope?: Envelope;
  /** Told of a file left out because a path value cannot be a file name (see UnnamableValue). */
  readonly leftOut?: (reason: string) => void;
}

/** Query values an upstream applies to a request that leaves them out, as the snapshot records them (e.g. `{ limit: '20' }`). */
export type Defaults = Readonly<Record<string, string>>;

/** What a file without rows was made from. */
export const EMPTY = 'empty';

type Values = Readonly<Record<string, string>>;

/** Per endpoint, its path's segments: a parameter's name, or the literal text. Millions of files share a few endpoints. */
const patternCache = new WeakMap<Endpoint, readonly { readonly param?: string; readonly text: string }[]>();

function patternOf(endpoint: Endpoint) {
  let pattern = patternCache.get(endpoint);
  if (!pattern) {
    pattern = endpoint.fullPath
      .split('/')
      .slice(1)
      .map((text) => ({ text, param: /^\{(\w+)\}$/.exec(text)?.[1] }));
    patternCache.set(endpoint, pattern);
  }
  return pattern;
}

/** A path value that no file name can stand for (empty, or too long even for the file system): its file is left out of the tree. */
export class UnnamableValue extends Error {}

/** Longest file name written, in bytes, before `.json`: most file systems take 255. */
const MAX_NAME_BYTES = 240;

/**
 * A path value as a file name: as it is, unless it holds what a file name may not (`/`, `\`, control
 * characters) or what would read as something else (`%`, a leading `.`); then those characters
 * are percent-encoded. `%` is among them, so a name holding `%` is always an encoded one:
 * valueOfFileName reverses it. A URL to the file encodes the name once more (a `/` in a value is
 * `%252F` in the link), as static hosts decode a URL path before looking for the file.
 */
export function fileNameOf(value: string): string {
  const name = escapeFileName(value);
  if (name === '' || Buffer.byteLength(name) > MAX_NAME_BYTES)
    throw new UnnamableValue(
      `${JSON.stringify(value.slice(0, 80))}${value.length > 80 ? '…' : ''} cannot be a file name (${name === '' ? 'empty' : `more than ${MAX_NAME_BYTES} bytes`})`,
    );
  return name;
}

/** The path value a file name stands for: fileNameOf reversed. */
export const valueOfFileName = (name: string): string => (name.includes('%') ? decodeURIComponent(name) : name);

/** A file's path segments in the tree (path values as file names, see fileNameOf). */
export function segmentsIn(endpoint: Endpoint, layout: TreeLayout, values: Values, unit: FileUnit): string[] {
  const segments = patternOf(endpoint).map(({ param, text }) => {
    if (param === undefined) return text;
    const value = values[param];
    if (value === undefined) throw new Error(`${endpoint.fullPath}: no value for {${param}}`);
    return fileNameOf(value);
  });
  return unit.kind === WHOLE.kind ? segments : [...segments, ...layout.segments(unit)];
}

/** A file's path values and unit, from its path in the tree. */
export function fileIn(endpoint: Endpoint, layout: TreeLayout, path: string): { values: Record<string, string>; unit: FileUnit } {
  const segments = path.replace(/\.json$/, '').split('/');
  const pattern = patternOf(endpoint);
  const values: Record<string, string> = {};
  pattern.forEach(({ param }, i) => {
    if (param !== undefined) values[param] = valueOfFileName(segments[i]!);
  });
  const rest = segments.slice(pattern.length);
  return { values, unit: rest.length ? layout.unitOf(rest) : WHOLE };
}

/** The v1 request a file stands for: its path and query. */
export function requestIn(endpoint: Endpoint, layout: TreeLayout, values: Values, unit: FileUnit): { path: string; query: Record<string, string> } {
  const path = endpoint.fullPath.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name]!));
  return { path, query: unit.kind === WHOLE.kind ? {} : layout.query(unit) };
}

/** The file's path in the tree, as on disk: `api/public/rcn/transactions/offset/200.json`. */
export const pathIn = (source: Pick<FileSource, 'endpoint'>, layout: TreeLayout, values: Values, unit: FileUnit): string =>
  segmentsIn(source.endpoint, layout, values, unit).join('/') + '.json';

/** The parameters the server would parse from the request a file stands for. */
export function paramsIn(source: Pick<FileSource, 'endpoint'>, layout: TreeLayout, values: Values, unit: FileUnit): Record<string, unknown> {
  const { endpoint } = source;
  const parsed = endpoint.parse({ ...values, ...requestIn(endpoint, layout, values, unit).query });
  if (!parsed.success) throw new Error(`${endpoint.fullPath}: the static tree asks what the endpoint refuses: ${parsed.error.message}`);
  return parsed.data;
}
