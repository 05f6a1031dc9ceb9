import { NotFound, numberedPage, offsetPage, type Answer } from '../../datasets/core/answer.ts';
import { addDays, utcDayOf } from '../../datasets/core/calendar.ts';
import type { Dataset } from '../../datasets/core/dataset.ts';
import type { Endpoint } from '../../datasets/core/endpoint.ts';
import type { RenderContext } from '../../datasets/core/render.ts';
import { rowOrder } from '../../datasets/core/row-order.ts';
import type { SnapshotRows } from './snapshot-rows.ts';
import { filePath, nextMonth, PAGE_LIMIT, PAGE_SIZE, requestOf, type Unit } from './tree.ts';

/**
 * Every file of one endpoint, generic over how the endpoint is answered: the body the server
 * gives for the request the file stands for, rendered by the same functions, made from ordered
 * scans of whole tables (or of one series at a time) rather than a query per file.
 */

/** One file of the tree: where it goes and its body. */
export interface StaticFile {
  /** Relative to the tree's root, as on disk: `api/public/rcn/transactions/offset/200.json`. */
  readonly path: string;
  readonly body: unknown;
}

type Of<K extends Answer['kind']> = Extract<Answer, { kind: K }>;
type Values = Record<string, string>;
type Row = Record<string, unknown>;

export interface EndpointSource {
  readonly dataset: Dataset;
  readonly endpoint: Endpoint;
  readonly rows: SnapshotRows;
  readonly context: RenderContext;
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

/** The parameters the server would parse from the request a file stands for. */
function paramsOf({ endpoint }: EndpointSource, values: Values, unit: Unit): Record<string, unknown> {
  const parsed = endpoint.parse({ ...values, ...requestOf(endpoint, values, unit).query });
  if (!parsed.success) throw new Error(`${endpoint.fullPath}: the static tree asks what the endpoint refuses: ${parsed.error.message}`);
  return parsed.data;
}

const file = (source: EndpointSource, values: Values, unit: Unit, body: unknown): StaticFile => ({ path: filePath(source.endpoint, values, unit), body });

async function* listFiles(source: EndpointSource, answer: Of<'list'>) {
  const { dataset, rows, context } = source;
  const resource = rows.resource(dataset, answer.resource);
  const items = (await rows.all(dataset, answer.resource)).map((row) => resource.render(row, context));
  yield file(source, {}, { kind: 'whole' }, items);
}

async function* itemFiles(source: EndpointSource, answer: Of<'item'>) {
  const { dataset, rows, context } = source;
  const resource = rows.resource(dataset, answer.resource);
  const column = answer.match[0]!;
  for await (const batch of rows.stream(dataset, answer.resource)) {
    for (const row of batch) yield file(source, { [answer.param]: String(row[column]) }, { kind: 'whole' }, resource.render(row, context));
  }
}

async function* documentFiles(source: EndpointSource, answer: Of<'document'>) {
  const { dataset, rows, context } = source;
  const [row] = await rows.all(dataset, answer.resource, { equal: answer.where });
  if (row) yield file(source, {}, { kind: 'whole' }, rows.resource(dataset, answer.resource).render(row, context));
}

/** Pages of 100 in list order; the first is the request with no query. An empty list is one empty page. */
async function* pageFiles(source: EndpointSource, answer: Of<'page'>) {
  const { dataset, endpoint, rows, context } = source;
  const resource = rows.resource(dataset, answer.resource);
  const total = await rows.count(dataset, answer.resource);
  let items: unknown[] = [];
  let offset = 0;
  const page = () => {
    const next = offset + items.length < total ? context.link(endpoint.fullPath, { limit: PAGE_LIMIT, offset: offset + PAGE_LIMIT }) : null;
    const unit: Unit = offset === 0 ? { kind: 'whole' } : { kind: 'offset', offset };
    return file(source, {}, unit, offsetPage(items, { limit: PAGE_LIMIT, offset, total, next }));
  };
  for await (const batch of rows.stream(dataset, answer.resource)) {
    for (const row of batch) {
      items.push(resource.render(row, context));
      if (items.length === PAGE_LIMIT) {
        yield page();
        items = [];
        offset += PAGE_LIMIT;
      }
    }
  }
  if (items.length || offset === 0) yield page();
}

/** Every UTC day from the first row's to the last row's, in pages of 500 (an empty day: one empty page). */
async function* numberedPageFiles(source: EndpointSource, answer: Of<'numbered-page'>) {
  const { dataset, rows, context } = source;
  const resource = rows.resource(dataset, answer.resource);
  let day: string | undefined;
  let page = 1;
  let data: unknown[] = [];
  const emit = (hasNextPage: boolean) => file(source, {}, { kind: 'day', day: day!, page }, numberedPage(data, page, PAGE_SIZE, hasNextPage));
  for await (const batch of rows.stream(dataset, answer.resource)) {
    for (const row of batch) {
      const rowDay = utcDayOf(row[answer.time] as number);
      if (rowDay !== day) {
        if (day !== undefined) {
          yield emit(false);
          for (let empty = addDays(day, 1); empty < rowDay; empty = addDays(empty, 1)) {
            day = empty;
            page = 1;
            data = [];
            yield emit(false);
          }
        }
        day = rowDay;
        page = 1;
        data = [];
      } else if (data.length === PAGE_SIZE) {
        yield emit(true);
        page++;
        data = [];
      }
      data.push(resource.render(row, context));
    }
  }
  if (day !== undefined) yield emit(false);
}

/**
 * Per combination of parents, every UTC month from the series' first row to its last (months
 * between with no rows: an empty series); a series with no rows has no files.
 */
async function* seriesFiles(source: EndpointSource, answer: Of<'series'>) {
  const { dataset, rows, context } = source;
  const resource = rows.resource(dataset, answer.resource);
  const table = dataset.tables[resource.table]!;
  const order = [answer.time, ...rowOrder(table).filter((column) => column !== answer.time)];
  // One after the other: they share a connection, on which a new query ends a running one.
  const parentRows: Row[][] = [];
  for (const parent of answer.parents) parentRows.push(await rows.all(dataset, parent.resource));
  const combinations = parentRows.reduce<Row[][]>((acc, list) => acc.flatMap((combo) => list.map((row) => [...combo, row])), [[]]);
  for (const combo of combinations) {
    const values: Values = Object.fromEntries(answer.parents.map((parent, i) => [parent.param, String(combo[i]![parent.match[0]!])]));
    const equal = Object.fromEntries(answer.parents.map((parent, i) => [parent.column, combo[i]![parent.key]]));
    let month: string | undefined;
    let items: unknown[] = [];
    const emit = () => {
      const unit: Unit = { kind: 'month', month: month! };
      return file(source, values, unit, answer.envelope(items, paramsOf(source, values, unit), context));
    };
    for await (const batch of rows.stream(dataset, answer.resource, { equal }, order)) {
      for (const row of batch) {
        const rowMonth = utcDayOf(row[answer.time] as number).slice(0, 7);
        if (rowMonth !== month) {
          if (month !== undefined) {
            yield emit();
            for (let empty = nextMonth(month); empty < rowMonth; empty = nextMonth(empty)) {
              month = empty;
              items = [];
              yield emit();
            }
          }
          month = rowMonth;
          items = [];
        }
        items.push(resource.render(row, context));
      }
    }
    if (month !== undefined) yield emit();
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
      yield file(source, values, unit, await answer.answer(query, paramsOf(source, values, unit), context));
    } catch (error) {
      if (!(error instanceof NotFound)) throw error;
    }
  }
}
