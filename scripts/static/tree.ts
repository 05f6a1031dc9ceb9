import { addDays } from '../../core/calendar.ts';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { Endpoint } from '../../datasets/vocabulary/endpoint.ts';
import { queryString, type Query, type RenderContext } from '../../datasets/vocabulary/render.ts';
import { createRouter } from '../../datasets/vocabulary/router.ts';
import { formatInstant } from '../../core/zoned-time.ts';

/**
 * The static tree's layout: which file answers which v1 request. A file is the request's path
 * with `.json`, and for requests that take a range or a page, one more level naming the unit:
 *
 *   /api/public/rcn/transactions.json                    GET /api/public/rcn/transactions (limit 100, offset 0)
 *   /api/public/rcn/transactions/offset/200.json         …?limit=100&offset=200
 *   /api/public/rcn/transactions/{transactionGmlId}.json GET /api/public/rcn/transactions/{id}
 *   /api/public/citybike/rides/2024-05-01/2.json         …/rides?from=2024-05-01&to=2024-05-01&page=2&pageSize=500
 *   /api/public/bike-counter/counters/{id}/readings/2024-05.json
 *                                                        …/readings?from=2024-05-01&to=2024-05-31
 *
 * Days and months are UTC, as the v1 default `timezone` reads them. Path values are file names
 * as they are; links encode them as a URL path would.
 */

/** Items per file of an offset-paged list: the v1 default. */
export const PAGE_LIMIT = 100;
/** Items per file of a numbered page: the v1 maximum. */
export const PAGE_SIZE = 500;

export type Unit =
  /** The request with no query. */
  | { readonly kind: 'whole' }
  /** `?limit=100&offset=N` (N > 0; offset 0 is the whole request). */
  | { readonly kind: 'offset'; readonly offset: number }
  /** `?from=D&to=D&page=P&pageSize=500`. */
  | { readonly kind: 'day'; readonly day: string; readonly page: number }
  /** `?from=<first day>&to=<last day>` of a month. */
  | { readonly kind: 'month'; readonly month: string };

/** The unit of an endpoint's files. */
export function unitKindOf(endpoint: Endpoint): Unit['kind'] {
  switch (endpoint.answer.kind) {
    case 'page':
      return 'offset';
    case 'numbered-page':
      return 'day';
    case 'series':
      return 'month';
    default:
      return 'whole';
  }
}

/** The file's path in the tree, as on disk (path values unencoded): `api/public/rcn/transactions/offset/200.json`. */
export function filePath(endpoint: Endpoint, values: Readonly<Record<string, string>>, unit: Unit): string {
  return segmentsOf(endpoint, values, unit).join('/') + '.json';
}

/** The file's URL path under the tree's base: `/api/public/…`, values percent-encoded. */
export function fileUrl(endpoint: Endpoint, values: Readonly<Record<string, string>>, unit: Unit): string {
  return '/' + segmentsOf(endpoint, values, unit).map(encodeURIComponent).join('/') + '.json';
}

/** Per endpoint, its path's segments: a parameter's name, or the literal text. Millions of files share a few endpoints. */
const patternCache = new WeakMap<Endpoint, readonly { readonly param?: string; readonly text: string }[]>();

function patternOf(endpoint: Endpoint) {
  let pattern = patternCache.get(endpoint);
  if (!pattern) {
    pattern = endpoint.fullPath.split('/').slice(1).map((text) => ({ text, param: /^\{(\w+)\}$/.exec(text)?.[1] }));
    patternCache.set(endpoint, pattern);
  }
  return pattern;
}

function segmentsOf(endpoint: Endpoint, values: Readonly<Record<string, string>>, unit: Unit): string[] {
  const segments = patternOf(endpoint).map(({ param, text }) => {
    if (param === undefined) return text;
    const value = values[param];
    if (value === undefined) throw new Error(`${endpoint.fullPath}: no value for {${param}}`);
    if (value === '' || value.includes('/') || value.startsWith('.')) throw new Error(`${endpoint.fullPath}: "${value}" cannot be a file name in the static tree`);
    return value;
  });
  switch (unit.kind) {
    case 'whole':
      return segments;
    case 'offset':
      return [...segments, 'offset', String(unit.offset)];
    case 'day':
      return [...segments, unit.day, String(unit.page)];
    case 'month':
      return [...segments, unit.month];
  }
}

/** A file's path values and unit, from its path in the tree: the inverse of filePath. */
export function fileOf(endpoint: Endpoint, path: string): { values: Record<string, string>; unit: Unit } {
  const segments = path.replace(/\.json$/, '').split('/');
  const pattern = patternOf(endpoint);
  const values: Record<string, string> = {};
  pattern.forEach(({ param }, i) => {
    if (param !== undefined) values[param] = segments[i]!;
  });
  const [first, second] = segments.slice(pattern.length);
  const kind = first === undefined ? 'whole' : unitKindOf(endpoint);
  const unit: Unit =
    kind === 'offset' ? { kind, offset: Number(second) }
    : kind === 'day' ? { kind, day: first!, page: Number(second) }
    : kind === 'month' ? { kind, month: first! }
    : { kind: 'whole' };
  return { values, unit };
}

/** The pattern of an endpoint's files and of the requests they stand for, placeholders in braces. */
export function patternsOf(endpoint: Endpoint): { file: string; request: string } {
  const unit = {
    whole: { file: '', query: '' },
    offset: { file: '/offset/{offset}', query: `?limit=${PAGE_LIMIT}&offset={offset}` },
    day: { file: '/{day}/{page}', query: `?from={day}&to={day}&page={page}&pageSize=${PAGE_SIZE}` },
    month: { file: '/{month}', query: '?from={month}-01&to={last day of month}' },
  }[unitKindOf(endpoint)];
  return { file: `${endpoint.fullPath}${unit.file}.json`, request: `GET ${endpoint.fullPath}${unit.query}` };
}

/** The v1 request a file stands for: its path and query. */
export function requestOf(endpoint: Endpoint, values: Readonly<Record<string, string>>, unit: Unit): { path: string; query: Record<string, string> } {
  const path = endpoint.fullPath.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name]!));
  switch (unit.kind) {
    case 'whole':
      return { path, query: {} };
    case 'offset':
      return { path, query: { limit: String(PAGE_LIMIT), offset: String(unit.offset) } };
    case 'day':
      return { path, query: { from: unit.day, to: unit.day, page: String(unit.page), pageSize: String(PAGE_SIZE) } };
    case 'month':
      return { path, query: { from: `${unit.month}-01`, to: lastDayOf(unit.month) } };
  }
}

export const lastDayOf = (month: string) => addDays(`${nextMonth(month)}-01`, -1);

export function nextMonth(month: string): string {
  const [year, number] = month.split('-').map(Number) as [number, number];
  return number === 12 ? `${year + 1}-01` : `${year}-${String(number + 1).padStart(2, '0')}`;
}

/**
 * Which unit of an endpoint a request's query asks for, if a file holds it. Parameters at their
 * defaults (version v1, timezone UTC, limit 100, offset 0, page 1) may be given or left out.
 */
export function unitOf(endpoint: Endpoint, query: Readonly<Record<string, string>>): Unit | undefined {
  const rest: Record<string, string> = { ...query };
  if (rest.version === 'v1') delete rest.version;
  if (rest.timezone === 'UTC') delete rest.timezone;
  const kind = unitKindOf(endpoint);
  if (kind === 'offset') {
    if ((rest.limit ?? String(PAGE_LIMIT)) !== String(PAGE_LIMIT)) return undefined;
    const offset = Number(rest.offset ?? 0);
    delete rest.limit;
    delete rest.offset;
    if (Object.keys(rest).length || !Number.isInteger(offset) || offset < 0 || offset % PAGE_LIMIT) return undefined;
    return offset === 0 ? { kind: 'whole' } : { kind: 'offset', offset };
  }
  if (kind === 'day') {
    const { from, to, page = '1', pageSize, ...others } = rest;
    if (Object.keys(others).length || !from || from !== to || pageSize !== String(PAGE_SIZE) || !/^[1-9]\d*$/.test(page)) return undefined;
    return { kind: 'day', day: from, page: Number(page) };
  }
  if (kind === 'month') {
    const { from, to, ...others } = rest;
    const month = from?.slice(0, 7);
    if (Object.keys(others).length || !month || from !== `${month}-01` || to !== lastDayOf(month)) return undefined;
    return { kind: 'month', month };
  }
  return Object.keys(rest).length ? undefined : { kind: 'whole' };
}

/** Thrown when a link points where the static tree has no file. */
export class NoStaticFile extends Error {}

/**
 * Rendering for the static tree: links point at its files, under `base` (empty for links from the
 * site's root, or e.g. `https://cdn.example.org/odsnap`); instants in UTC.
 */
export function staticContext(datasets: readonly Dataset[], base: string): RenderContext & { fileUrlOf(path: string, query?: Query): string } {
  const route = createRouter(datasets);
  const root = base.replace(/\/+$/, '');
  // A link with no query is mostly one of a few (a dictionary term) or one an item is linked by
  // from several files: remembered, it is not routed again for every row that shows it.
  const plain = new Map<string, string>();
  const fileUrlOf = (path: string, query: Query = {}) => {
    const isPlain = Object.keys(query).length === 0;
    const known = isPlain ? plain.get(path) : undefined;
    if (known !== undefined) return known;
    const url = routed(path, query);
    if (isPlain) {
      if (plain.size >= 100_000) plain.clear();
      plain.set(path, url);
    }
    return url;
  };
  const routed = (path: string, query: Query) => {
    const found = route(path);
    const text = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]));
    const unit = found && unitOf(found.endpoint, text);
    if (!found || !unit) throw new NoStaticFile(`no file of the static tree answers ${path}${queryString(query)}`);
    return root + fileUrl(found.endpoint, found.params, unit);
  };
  return { timeZone: 'UTC', link: fileUrlOf, time: (ms) => formatInstant(ms, 'UTC'), fileUrlOf };
}
