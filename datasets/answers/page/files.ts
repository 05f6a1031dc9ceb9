import { EMPTY, pathIn, WHOLE, type FileSource, type StaticFile } from '../static-files.ts';
import type { PageAnswer } from './declaration.ts';
import { pageLayout, type PageUnit } from './layout.ts';
import { offsetPage, offsetPageAround, pageLimitOf } from './offset-page.ts';

/**
 * Pages of the list's default size (100, or its upstream's) in list order; the first is the request with no query. An empty list is one empty
 * page. A page's input is its rows' prints and the list's total: when only the total changed
 * (every page of a growing register), the page keeps its rendered rows and gets a new envelope.
 */
export async function* pageFiles(source: FileSource, answer: PageAnswer): AsyncGenerator<StaticFile> {
  const { dataset, endpoint, rows, context } = source;
  const resource = rows.resource(dataset, answer.resource);
  const PAGE_LIMIT = pageLimitOf(source.defaults);
  const layout = pageLayout(PAGE_LIMIT);
  const prints = await source.prints.prints(dataset, { kind: 'pages', resource: answer.resource, pageRows: PAGE_LIMIT });
  const total = prints.reduce((sum, page) => sum + page.rows, 0);
  const pagination = (offset: number, count: number, listTotal: number) =>
    offsetPage(Array.from({ length: count }), {
      limit: PAGE_LIMIT,
      offset,
      total: listTotal,
      next: offset + count < listTotal ? context.link(endpoint.fullPath, { limit: PAGE_LIMIT, offset: offset + PAGE_LIMIT }) : null,
    }).pagination;
  // What comes before and after the page's items; the total is after them, unless its upstream writes it before.
  const around = (offset: number, count: number, listTotal: number) => offsetPageAround({ ...pagination(offset, count, listTotal), count }, source.envelope);
  const ending = (offset: number, count: number, listTotal: number) => around(offset, count, listTotal)[1];
  const sameStart = (offset: number, count: number, was: number) => around(offset, count, was)[0] === around(offset, count, total)[0];
  /** `previous`: the input the tree in use made the page from; `was`: its total, when its rows are the same. */
  type Page = { offset: number; count: number; path: string; input: string; previous?: string; was?: number };
  const pages: Page[] = [];
  for (let offset = 0, i = 0; offset === 0 || offset < total; offset += PAGE_LIMIT, i++) {
    const shown = prints[i] ?? { rows: 0, print: EMPTY };
    if (shown.rows !== Math.min(PAGE_LIMIT, total - offset)) throw new Error(`${endpoint.fullPath}: page ${i + 1} of the prints has ${shown.rows} rows`);
    const unit: PageUnit = offset === 0 ? WHOLE : { kind: 'offset', offset };
    const path = pathIn(source, layout, {}, unit);
    const previous = source.previousInput(path);
    const [previousRows, previousTotal] = previous?.split('~') ?? [];
    // Rows unchanged, a new total is a new ending, where all that changes comes after the rows.
    const was = previousRows === shown.print && previousTotal && sameStart(offset, shown.rows, Number(previousTotal)) ? { was: Number(previousTotal) } : {};
    pages.push({ offset, count: shown.rows, path, input: `${shown.print}~${total}`, previous, ...was });
  }
  const fileOfPage = (page: Page, items?: unknown[]): StaticFile => {
    if (page.previous === page.input) return { type: 'carried', files: [{ path: page.path, input: page.input }] };
    if (page.was !== undefined)
      return {
        type: 'new-ending',
        path: page.path,
        ending: { was: ending(page.offset, page.count, page.was), now: ending(page.offset, page.count, total) },
        input: page.input,
      };
    const { next } = pagination(page.offset, page.count, total);
    return {
      type: 'rendered',
      path: page.path,
      body: offsetPage(items ?? [], { limit: PAGE_LIMIT, offset: page.offset, total, next }, source.envelope),
      input: page.input,
      endsWith: ending(page.offset, page.count, total),
    };
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
