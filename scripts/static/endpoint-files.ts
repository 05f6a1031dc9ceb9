import { NotFound, numberedPage, offsetPage, type Answer } from '../../datasets/vocabulary/answer.ts';
import { addDays, dayToUtcMs, utcDayOf } from '../../core/calendar.ts';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { Endpoint } from '../../datasets/vocabulary/endpoint.ts';
import type { RenderContext } from '../../datasets/vocabulary/render.ts';
import { rowOrder } from '../../core/row-order.ts';
import { BUCKETS, type PrintsWanted, type SnapshotRows } from './snapshot-rows.ts';
import { filePath, nextMonth, PAGE_LIMIT, PAGE_SIZE, requestOf, type Unit } from './tree.ts';

/**
 * Every file of one endpoint, generic over how the endpoint is answered: the body the server
 * gives for the request the file stands for, rendered by the same functions, made from ordered
 * scans of whole tables (or of one series at a time) rather than a query per file.
 *
 * Files made from many rows carry an input fingerprint (of the rows they show, from DuckDB's row
 * hashes, and of their place: offset and total, page, month). When the tree in use holds a file
 * made from the same input, the file is carried over instead of rendered, so a rebuild after a
 * pull renders only what the pull changed. Files come in the same order either way.
 */

export type StaticFile =
  /**
   * Rendered: its body, and the input it was made from when it has one; `endsWith`: the end of
   * the body's JSON that a later build may replace (a page's pagination).
   */
  | { readonly path: string; readonly body: unknown; readonly input?: string; readonly endsWith?: string; readonly segment?: string }
  /** Unchanged since the tree in use: the files there are kept, in a run (most of a rebuild is runs of thousands). */
  | { readonly carried: readonly CarriedFile[] }
  /**
   * The segments the endpoint's files come in, each with the fingerprint of what its files are
   * made from: those `carried` are kept whole from the tree in use; the files of the others follow,
   * each naming its segment.
   */
  | { readonly segments: readonly SegmentOfFiles[]; readonly places: number }
  /**
   * The file of the tree in use with its ending replaced: a page whose rows are unchanged but
   * whose envelope (the list's total) is not, so the rows are not read and rendered again.
   */
  | { readonly path: string; readonly ending: { readonly was: string; readonly now: string }; readonly input: string }
  /**
   * The file of the tree in use with rows added before its ending: a month of a series whose rows
   * so far are unchanged, so only the rows after them are read and rendered.
   */
  | { readonly path: string; readonly extend: { readonly ending: string; readonly insert: string }; readonly input: string };

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

type Of<K extends Answer['kind']> = Extract<Answer, { kind: K }>;
type Values = Record<string, string>;
type Row = Record<string, unknown>;

export interface EndpointSource {
  readonly dataset: Dataset;
  readonly endpoint: Endpoint;
  readonly rows: SnapshotRows;
  readonly context: RenderContext;
  /** The input the tree in use made a file (of a segment) from, if it was made the same way. */
  readonly previousInput: (path: string, segment?: string) => string | undefined;
  /** The print of a segment of the tree in use, if it was made the same way. */
  readonly previousSegment: (key: string) => string | undefined;
  /** Most rows a scan of every changing series may hold (see seriesFiles); default 1,000,000. */
  readonly seriesInOneScan?: number;
}

export function endpointFiles(source: EndpointSource): AsyncGenerator<StaticFile> {
  const answer = source.endpoint.answer;
  switch (answer.kind) {
    case 'list':
      return listFiles(source, answer);
    case 'item':
      return itemFiles(source, answer);
    case 'document':
      return documentFiles(source, answer);
    case 'page':
      return pageFiles(source, answer);
    case 'numbered-page':
      return numberedPageFiles(source, answer);
    case 'series':
      return seriesFiles(source, answer);
    case 'custom':
      return customFiles(source, answer);
  }
}

/**
 * The prints (see SnapshotRows.prints) an endpoint's files are made by, if any: items by bucket,
 * pages by page. Asked before the build comes to the endpoint, so they can be read ahead, while
 * the main thread is busy with other files.
 */
export function printsOf(endpoint: Endpoint): PrintsWanted | undefined {
  const { answer } = endpoint;
  if (answer.kind === 'item') return { kind: 'buckets', resource: answer.resource, keyColumn: answer.match[0]! };
  if (answer.kind === 'page') return { kind: 'pages', resource: answer.resource, pageRows: PAGE_LIMIT };
  return undefined;
}

/** The parameters the server would parse from the request a file stands for. */
function paramsOf({ endpoint }: EndpointSource, values: Values, unit: Unit): Record<string, unknown> {
  const parsed = endpoint.parse({ ...values, ...requestOf(endpoint, values, unit).query });
  if (!parsed.success) throw new Error(`${endpoint.fullPath}: the static tree asks what the endpoint refuses: ${parsed.error.message}`);
  return parsed.data;
}

const pathOf = (source: EndpointSource, values: Values, unit: Unit) => filePath(source.endpoint, values, unit);
const EMPTY = 'empty';
/** A month of every air sensor at city scale is about 360,000 rows. */
const SERIES_IN_ONE_SCAN = 1_000_000;

async function* listFiles(source: EndpointSource, answer: Of<'list'>) {
  const { dataset, rows, context } = source;
  const resource = rows.resource(dataset, answer.resource);
  const items = (await rows.all(dataset, answer.resource)).map((row) => resource.render(row, context));
  yield { path: pathOf(source, {}, { kind: 'whole' }), body: items };
}

async function* documentFiles(source: EndpointSource, answer: Of<'document'>) {
  const { dataset, rows, context } = source;
  const [row] = await rows.all(dataset, answer.resource, { equal: answer.where });
  if (row) yield { path: pathOf(source, {}, { kind: 'whole' }), body: rows.resource(dataset, answer.resource).render(row, context) };
}

/**
 * An item per row, in segments: the rows of a bucket of keys (see BUCKETS). A bucket whose print is
 * unchanged is carried whole; in the others, only rows whose print changed are read whole and rendered.
 */
async function* itemFiles(source: EndpointSource, answer: Of<'item'>) {
  const { dataset, endpoint, rows, context } = source;
  const resource = rows.resource(dataset, answer.resource);
  const column = answer.match[0]!;
  const buckets = await rows.prints(dataset, { kind: 'buckets', resource: answer.resource, keyColumn: column });
  const segmentOf = (bucket: number) => `${endpoint.fullPath}#${bucket}`;
  const segments = buckets.map(({ bucket, rows: files, print }) => ({ key: segmentOf(bucket), print, files, place: bucket, carried: source.previousSegment(segmentOf(bucket)) === print }));
  yield { segments, places: BUCKETS };
  const changed = segments.filter((segment) => !segment.carried).map((segment) => segment.place);
  if (!changed.length) return;
  const prints = await rows.rowPrints(dataset, answer.resource, column, changed.length === segments.length ? undefined : changed);
  const wanted = new Map<string, CarriedFile>();
  const unchanged: CarriedFile[] = [];
  for (const { key, print, bucket } of prints) {
    const file = { path: pathOf(source, { [answer.param]: key }, { kind: 'whole' }), input: print, segment: segmentOf(bucket) };
    if (source.previousInput(file.path, file.segment) === print) unchanged.push(file);
    else wanted.set(key, file);
  }
  if (unchanged.length) yield { carried: unchanged };
  if (!wanted.size) return;
  // A few changed rows are asked for by key; many, by reading the table.
  const among = wanted.size <= 10_000 ? { column, values: [...wanted.keys()] } : undefined;
  let rendered = 0;
  for await (const batch of rows.stream(dataset, answer.resource, {}, { among })) {
    for (const row of batch) {
      const file = wanted.get(String(row[column]));
      if (!file) continue;
      rendered++;
      yield { ...file, body: resource.render(row, context) };
    }
  }
  if (rendered !== wanted.size) throw new Error(`${endpoint.fullPath}: ${wanted.size - rendered} of the rows the prints named were not read`);
}

/**
 * Pages of 100 in list order; the first is the request with no query. An empty list is one empty
 * page. A page's input is its rows' prints and the list's total: when only the total changed
 * (every page of a growing register), the page keeps its rendered rows and gets a new envelope.
 */
async function* pageFiles(source: EndpointSource, answer: Of<'page'>) {
  const { dataset, endpoint, rows, context } = source;
  const resource = rows.resource(dataset, answer.resource);
  const prints = await rows.prints(dataset, { kind: 'pages', resource: answer.resource, pageRows: PAGE_LIMIT });
  const total = prints.reduce((sum, page) => sum + page.rows, 0);
  const pagination = (offset: number, count: number, listTotal: number) =>
    offsetPage(Array.from({ length: count }), {
      limit: PAGE_LIMIT,
      offset,
      total: listTotal,
      next: offset + count < listTotal ? context.link(endpoint.fullPath, { limit: PAGE_LIMIT, offset: offset + PAGE_LIMIT }) : null,
    }).pagination;
  // The body ends with its pagination: JSON.stringify keeps offsetPage's key order.
  const ending = (offset: number, count: number, listTotal: number) => `],"pagination":${JSON.stringify(pagination(offset, count, listTotal))}}`;
  /** `previous`: the input the tree in use made the page from; `was`: its total, when its rows are the same. */
  type Page = { offset: number; count: number; path: string; input: string; previous?: string; was?: number };
  const pages: Page[] = [];
  for (let offset = 0, i = 0; offset === 0 || offset < total; offset += PAGE_LIMIT, i++) {
    const shown = prints[i] ?? { rows: 0, print: EMPTY };
    if (shown.rows !== Math.min(PAGE_LIMIT, total - offset)) throw new Error(`${endpoint.fullPath}: page ${i + 1} of the prints has ${shown.rows} rows`);
    const unit: Unit = offset === 0 ? { kind: 'whole' } : { kind: 'offset', offset };
    const path = pathOf(source, {}, unit);
    const previous = source.previousInput(path);
    const [previousRows, previousTotal] = previous?.split('~') ?? [];
    pages.push({ offset, count: shown.rows, path, input: `${shown.print}~${total}`, previous, ...(previousRows === shown.print && previousTotal ? { was: Number(previousTotal) } : {}) });
  }
  const fileOfPage = (page: Page, items?: unknown[]): StaticFile => {
    if (page.previous === page.input) return { carried: [{ path: page.path, input: page.input }] };
    if (page.was !== undefined) return { path: page.path, ending: { was: ending(page.offset, page.count, page.was), now: ending(page.offset, page.count, total) }, input: page.input };
    const { next } = pagination(page.offset, page.count, total);
    return { path: page.path, body: offsetPage(items ?? [], { limit: PAGE_LIMIT, offset: page.offset, total, next }), input: page.input, endsWith: ending(page.offset, page.count, total) };
  };
  // Pages to render, as runs of neighbours: only their rows are read (a growing register
  // changes its last pages).
  const runs: { first: number; end: number }[] = [];
  pages.forEach((page, i) => {
    if (page.previous === page.input || page.was !== undefined || !page.count) return;
    const last = runs.at(-1);
    if (last && last.end === i) last.end = i + 1;
    else runs.push({ first: i, end: i + 1 });
  });
  let page = 0;
  for (const run of runs) {
    for (; page < run.first; page++) yield fileOfPage(pages[page]!);
    const window = { offset: pages[run.first]!.offset, limit: pages[run.end - 1]!.offset + pages[run.end - 1]!.count - pages[run.first]!.offset };
    let items: unknown[] = [];
    for await (const batch of rows.stream(dataset, answer.resource, {}, { window })) {
      for (const row of batch) {
        items.push(resource.render(row, context));
        if (items.length === pages[page]!.count) {
          yield fileOfPage(pages[page++]!, items);
          items = [];
        }
      }
    }
    if (page !== run.end) throw new Error(`${endpoint.fullPath}: the rows at offsets ${window.offset}… are not the ${window.limit} the prints counted`);
  }
  // The rest (all of them when no page is rendered, or the one empty page of an empty list).
  for (; page < pages.length; page++) yield fileOfPage(pages[page]!);
}

/**
 * Every UTC day from the first row's to the last row's, in pages of 500 (an empty day: one empty
 * page). Days whose rows are unchanged are carried; rows are read from the first changed day on.
 */
async function* numberedPageFiles(source: EndpointSource, answer: Of<'numbered-page'>) {
  const { dataset, rows, context } = source;
  const resource = rows.resource(dataset, answer.resource);
  const groups = await rows.groupPrints(dataset, answer.resource, [], answer.time, 'day');
  if (!groups.length) return;
  const byDay = new Map(groups.map((group) => [group.unit, group]));
  const days: { day: string; pages: number; print: string }[] = [];
  for (let day = groups[0]!.unit; day <= groups.at(-1)!.unit; day = addDays(day, 1)) {
    const group = byDay.get(day);
    days.push({ day, pages: Math.max(1, Math.ceil((group?.rows ?? 0) / PAGE_SIZE)), print: group?.print ?? EMPTY });
  }
  const pathsOf = (day: (typeof days)[number]) => Array.from({ length: day.pages }, (_, i) => pathOf(source, {}, { kind: 'day', day: day.day, page: i + 1 }));
  const isChanged = (day: (typeof days)[number]) => pathsOf(day).some((path, i) => source.previousInput(path) !== `${day.print}:${i + 1}`);
  const firstChanged = days.findIndex(isChanged);
  const carry = function* (day: (typeof days)[number]) {
    yield { carried: pathsOf(day).map((path, i) => ({ path, input: `${day.print}:${i + 1}` })) };
  };
  for (const day of days.slice(0, firstChanged < 0 ? days.length : firstChanged)) yield* carry(day);
  if (firstChanged < 0) return;

  const pending = days.slice(firstChanged);
  let current = 0;
  let data: unknown[] = [];
  let page = 1;
  const emit = (hasNextPage: boolean) => {
    const day = pending[current]!;
    return { path: pathOf(source, {}, { kind: 'day', day: day.day, page }), body: numberedPage(data, page, PAGE_SIZE, hasNextPage), input: `${day.print}:${page}` };
  };
  /** Finishes days before `day`: the current one's last page, and empty days. */
  const finishUntil = function* (day: string | undefined) {
    while (current < pending.length && (day === undefined || pending[current]!.day < day)) {
      const entry = pending[current]!;
      if (changedDay.has(entry.day)) yield emit(false);
      else yield* carry(entry);
      current++;
      data = [];
      page = 1;
    }
  };
  const changedDay = new Set(pending.filter(isChanged).map((day) => day.day));
  for await (const batch of rows.stream(dataset, answer.resource, { from: dayToUtcMs(pending[0]!.day) })) {
    for (const row of batch) {
      const rowDay = utcDayOf(row[answer.time] as number);
      yield* finishUntil(rowDay);
      if (!changedDay.has(rowDay)) continue;
      if (data.length === PAGE_SIZE) {
        yield emit(true);
        page++;
        data = [];
      }
      data.push(resource.render(row, context));
    }
  }
  yield* finishUntil(undefined);
}

/**
 * Per combination of parents, every UTC month from the series' first row to its last (months
 * between with no rows: an empty series); a series with no rows has no files. Months whose rows
 * are unchanged are carried. When the changed months of all series hold few rows (a rebuild
 * after a pull: the last month of each), they are read in one scan; else each series is read
 * from its first changed month on.
 */
async function* seriesFiles(source: EndpointSource, answer: Of<'series'>) {
  const { dataset, rows, context } = source;
  const resource = rows.resource(dataset, answer.resource);
  const table = dataset.tables[resource.table]!;
  const order = [answer.time, ...rowOrder(table).filter((column) => column !== answer.time)];
  // One after the other: they share a connection, on which a new query ends a running one.
  const parentRows: Row[][] = [];
  for (const parent of answer.parents) parentRows.push(await rows.all(dataset, parent.resource));
  const by = answer.parents.map((parent) => parent.column);
  const groups = await rows.groupPrints(dataset, answer.resource, by, answer.time, 'month');
  const monthsOf = new Map<string, Map<string, { print: string; rows: number; last: number }>>();
  for (const group of groups) {
    const key = JSON.stringify(group.values);
    if (!monthsOf.has(key)) monthsOf.set(key, new Map());
    monthsOf.get(key)!.set(group.unit, group);
  }
  const combinations = parentRows.reduce<Row[][]>((acc, list) => acc.flatMap((combo) => list.map((row) => [...combo, row])), [[]]);
  type Series = {
    key: string;
    values: Values;
    equal: Record<string, unknown>;
    months: { month: string; path: string; input: string }[];
    changed: Set<string>;
    found: Map<string, { print: string; rows: number; last: number }>;
    /** Changed months whose file in the tree in use shows rows that are still the first of the month: month → the time of its last. */
    after: Map<string, number>;
  };
  const series: Series[] = [];
  for (const combo of combinations) {
    const key = JSON.stringify(answer.parents.map((_, i) => String(combo[i]![answer.parents[i]!.key])));
    const found = monthsOf.get(key);
    if (!found) continue;
    const values: Values = Object.fromEntries(answer.parents.map((parent, i) => [parent.param, String(combo[i]![parent.match[0]!])]));
    const equal = Object.fromEntries(answer.parents.map((parent, i) => [parent.column, combo[i]![parent.key]]));
    const present = [...found.keys()].sort();
    // A month's input: its rows' print and the time of its last row (see `after`).
    const months: { month: string; path: string; input: string }[] = [];
    for (let month = present[0]!; month <= present.at(-1)!; month = nextMonth(month)) {
      const group = found.get(month);
      months.push({ month, path: pathOf(source, values, { kind: 'month', month }), input: group ? `${group.print}@${group.last}` : EMPTY });
    }
    const changed = new Set(months.filter((m) => source.previousInput(m.path) !== m.input).map((m) => m.month));
    series.push({ key, values, equal, months, changed, found, after: new Map() });
  }

  // A month that went on (the last of a series, after a pull) keeps the rows its file shows when
  // they are still the month's first rows, up to the same last time: only the rows after them are
  // read and rendered, and added to the file (see extend), if the envelope ends with its rows.
  const candidates = new Map<string, { s: Series; month: string; print: string }[]>();
  for (const s of series) {
    for (const { month, path } of s.months.filter((m) => s.changed.has(m.month))) {
      const [print, last] = source.previousInput(path)?.split('@') ?? [];
      if (!print || last === undefined || !(Number(last) < s.found.get(month)!.last)) continue;
      const at = `${month}|${last}`;
      if (!candidates.has(at)) candidates.set(at, []);
      candidates.get(at)!.push({ s, month, print });
    }
  }
  for (const [at, wanting] of candidates) {
    const [month, last] = at.split('|') as [string, string];
    const prints = await rows.printsBetween(dataset, answer.resource, by, dayToUtcMs(`${month}-01`), Number(last) + 1);
    for (const { s, print } of wanting) if (prints.get(s.key) === print) s.after.set(month, Number(last));
  }
  /** Where a series' changed rows begin (epoch ms): the first changed month, or after what a month kept. */
  const changedFrom = (s: Series) => Math.min(...[...s.changed].map((month) => (s.after.has(month) ? s.after.get(month)! + 1 : dayToUtcMs(`${month}-01`))));

  /** Adds the rendered rows of the months asked for to `byMonth` (rows in time order), leaving out what a month kept. */
  const collect = (byMonth: Map<string, unknown[]>, sorted: readonly Row[], s: Series) => {
    // In time order, a row's month is worked out only when it leaves the month before.
    let start = Infinity;
    let end = -Infinity;
    let kept = -Infinity;
    let items: unknown[] | undefined;
    for (const row of sorted) {
      const time = row[answer.time] as number;
      if (time < start || time >= end) {
        const month = utcDayOf(time).slice(0, 7);
        [start, end] = [dayToUtcMs(`${month}-01`), dayToUtcMs(`${nextMonth(month)}-01`)];
        // Kept: what is before 1 ms after the month's last row, as printsBetween counted it.
        kept = (s.after.get(month) ?? -Infinity) + 1;
        items = s.changed.has(month) ? (byMonth.get(month) ?? byMonth.set(month, []).get(month)) : undefined;
      }
      if (items && time >= kept) items.push(resource.render(row, context));
    }
  };
  // One scan for all series from the earliest changed row on, when what it holds is small.
  const changing = series.filter((s) => s.changed.size);
  const earliest = Math.min(...changing.map(changedFrom));
  const held = changing.reduce((sum, s) => sum + [...s.found.values()].reduce((n, group) => n + (group.last >= earliest ? group.rows : 0), 0), 0);
  let scanned: Map<string, Row[]> | undefined;
  if (changing.length > 1 && held <= (source.seriesInOneScan ?? SERIES_IN_ONE_SCAN)) {
    scanned = new Map(changing.map((s) => [s.key, []]));
    for await (const batch of rows.stream(dataset, answer.resource, { from: earliest }, { order })) {
      for (const row of batch) scanned.get(JSON.stringify(answer.parents.map((parent) => String(row[parent.column]))))?.push(row);
    }
  }

  for (const s of series) {
    const { key, values, equal, months, changed } = s;
    const byMonth = new Map<string, unknown[]>();
    if (changed.size && scanned) {
      collect(byMonth, scanned.get(key)!, s);
      scanned.delete(key);
    } else if (changed.size) {
      // A series' changed months are its last few, so what is held stays small.
      for await (const batch of rows.stream(dataset, answer.resource, { equal, from: changedFrom(s) }, { order })) collect(byMonth, batch, s);
    }
    for (const m of months) {
      if (!changed.has(m.month)) {
        yield { carried: [m] };
        continue;
      }
      const params = paramsOf(source, values, { kind: 'month', month: m.month });
      const items = byMonth.get(m.month) ?? [];
      const ending = s.after.has(m.month) ? endingAfterRows(answer, items, params, context) : undefined;
      if (ending !== undefined) yield { path: m.path, extend: { ending, insert: `,${items.map((item) => JSON.stringify(item)).join(',')}` }, input: m.input };
      else if (s.after.has(m.month)) {
        // The envelope is not one to add rows to: the month is rendered whole after all.
        const whole: unknown[] = [];
        for await (const batch of rows.stream(dataset, answer.resource, { equal, from: dayToUtcMs(`${m.month}-01`), to: dayToUtcMs(`${nextMonth(m.month)}-01`) }, { order })) {
          for (const row of batch) whole.push(resource.render(row, context));
        }
        yield { path: m.path, body: answer.envelope(whole, params, context), input: m.input };
      } else yield { path: m.path, body: answer.envelope(items, params, context), input: m.input };
    }
  }
}

/**
 * What follows the rows in a series' JSON body, when its envelope puts the rows last and adds
 * nothing made from them: its body with no rows is `…[]<ending>`, and with rows `…[<rows>]<ending>`.
 * Checked with rows of the file itself, so an envelope that counts or reads them is seen.
 */
function endingAfterRows(answer: Of<'series'>, items: readonly unknown[], params: Record<string, unknown>, context: RenderContext): string | undefined {
  if (!items.length) return undefined;
  const probe = [items[0], items.at(-1)];
  try {
    const empty = JSON.stringify(answer.envelope([], params, context));
    const at = empty.lastIndexOf('[]');
    if (at < 0) return undefined;
    const ending = empty.slice(at + 1);
    const two = JSON.stringify(answer.envelope(probe, params, context));
    return two === `${empty.slice(0, at + 1)}${probe.map((item) => JSON.stringify(item)).join(',')}${ending}` ? ending : undefined;
  } catch {
    return undefined;
  }
}

/** Composed answers: one file, or one per value of each path parameter the declaration names. */
async function* customFiles(source: EndpointSource, answer: Of<'custom'>) {
  const { dataset, endpoint, rows, context } = source;
  const query = rows.queryFor(dataset, context);
  let combinations: Values[] = [{}];
  for (const name of endpoint.pathParams) {
    const each = answer.each![name]!;
    const found = [...new Set((await rows.all(dataset, each.resource)).map((row) => row[each.column]).filter((v) => v !== null && v !== undefined).map(String))];
    combinations = combinations.flatMap((values) => found.map((value) => ({ ...values, [name]: value })));
  }
  for (const values of combinations) {
    const unit: Unit = { kind: 'whole' };
    try {
      yield { path: pathOf(source, values, unit), body: await answer.answer(query, paramsOf(source, values, unit), context) };
    } catch (error) {
      if (!(error instanceof NotFound)) throw error;
    }
  }
}
