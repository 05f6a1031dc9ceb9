import type { BrowserDatabase } from './browser-duckdb.ts';
import type { TableStatistics } from '../../core/column-statistics.ts';
import { fileNameInUrl } from '../../datasets/answers/file-names.ts';
import { columnChart, readStatistics, type ChartTexts } from './column-charts.ts';
import { readCatalogue, type CatalogueTable } from './downloads-catalogue.ts';
import { createGrid, type GridRows } from './explorer-grid.ts';
import { mountFilterForm, showFacet, showFilters, type FilterTexts } from './explorer-filters.ts';
import { naturalRows, sideBySide } from './natural-rows.ts';
import { browserType } from './parquet-table.ts';
import { publishedFiles } from './published-files.ts';
import { statisticsBound } from './sort-bound.ts';
import type { TextResult } from './sql-result.ts';
import {
  boundable,
  boundarySql,
  boundedPageSql,
  countSql,
  facetSql,
  FACET_VALUES,
  PAGE_ROWS,
  pageSql,
  viewSql,
  type Filter,
  type ViewColumn,
  type ViewState,
} from './table-view.ts';
import { dataOf, fill } from './texts.ts';
import { viewOfQuery, viewQuery } from './view-url.ts';

/**
 * A table's page (TableView.astro): its rows in a grid, a page at a time, sorted, filtered and
 * faceted, the SQL of the view, its downloads, and the view in the URL. The whole table unsorted
 * is read straight from the published files (natural-rows.ts): the page opens without DuckDB.
 * Any other view loads DuckDB-WASM once (browser-duckdb.ts), which reads only the columns and
 * row groups its queries need.
 */

interface Texts extends FilterTexts {
  readonly reading: string;
  readonly loadingDuckdb: string;
  /** `{rows}` (plural), `{from}`, `{to}`: the rows matching and those shown. */
  readonly total: string;
  readonly totalNone: string;
  /** `{page}`, `{pages}`. */
  readonly pageOf: string;
  /** `{message}`. */
  readonly failed: string;
  /** `{column}`: a sort button's accessible name. */
  readonly sortBy: string;
  readonly record: string;
  readonly preparing: string;
  readonly chart: ChartTexts;
}

/** Where a row's record is: its key column, and the viewer's address of the record file with `{value}` for the key. */
interface RecordLink {
  readonly column: string;
  readonly href: string;
}

export async function mountTableExplorer(root: HTMLElement): Promise<void> {
  const texts = dataOf<Texts>(root, 'texts');
  const lang = root.closest<HTMLElement>('[lang]')?.lang || 'en';
  const numberFormat = new Intl.NumberFormat(lang === 'pl' ? 'pl-PL' : 'en-GB');
  const format = (n: number) => numberFormat.format(n);
  const name = root.dataset.table!;
  const key = dataOf<string[]>(root, 'key');
  const record = dataOf<RecordLink | null>(root, 'record');
  const catalogueUrl = root.dataset.catalogue!;
  const find = <T extends HTMLElement>(selector: string) => root.querySelector<T>(selector)!;
  const status = find('[data-explorer-status]');
  const problem = find('[data-explorer-error]');
  const sqlText = find('[data-explorer-sql]');
  const openSql = find<HTMLAnchorElement>('[data-explorer-open-sql]');
  const previous = find<HTMLButtonElement>('[data-explorer-page="previous"]');
  const next = find<HTMLButtonElement>('[data-explorer-page="next"]');
  const pageText = find('[data-explorer-page-text]');
  const filterList = find('[data-explorer-filters]');
  const facetColumn = find<HTMLSelectElement>('[data-facet-column]');
  const facetList = find('[data-facet-values]');

  const catalogueHref = new URL(catalogueUrl, location.href);
  const [catalogue, statistics] = await Promise.all([readCatalogue(catalogueHref), root.dataset.stats ? readStatistics(root.dataset.stats) : undefined]);
  const table: CatalogueTable | undefined = catalogue.tables.find((candidate) => candidate.sqlName === name);
  if (!table) throw new Error(`${catalogueHref.pathname} lists no table ${name}`);
  const files = publishedFiles(catalogueHref);
  // The columns as the files have them, in their order: what every view shows.
  const columns: ViewColumn[] = table.columns.map((column) => ({ name: column.name, type: browserType(column) }));
  const tableRows = table.files.reduce((sum, file) => sum + file.rows, 0);

  const keyIndex = record ? columns.findIndex((column) => column.name === record.column) : -1;
  // The record file's URL, named as the tree names it, encoded again as the viewer's `?url=` value.
  const grid = createGrid(
    find('[data-explorer-grid]'),
    columns,
    record && keyIndex >= 0
      ? (row) => (row[keyIndex] == null ? undefined : record.href.replace('{value}', encodeURIComponent(fileNameInUrl(row[keyIndex]!))))
      : undefined,
    { record: texts.record, nullValue: texts.nullValue },
  );

  let state: ViewState = viewOfQuery(location.search, columns);
  let database: Promise<BrowserDatabase> | undefined;
  const open = () =>
    (database ??= import('./browser-duckdb.ts')
      .then((module) => module.openBrowserDatabase(catalogueUrl, { catalogue, files }))
      .catch((failure: unknown) => {
        database = undefined;
        throw failure;
      }));

  /**
   * The view's rows and how many rows match, read as cheaply as the view allows. Rows in the files'
   * order are read first of the columns in sight, handed to `early` to draw, then of the others:
   * a wide table's long columns (the register's parcels and buildings as JSON) wait until after
   * its rows are shown.
   */
  async function read(view: ViewState, early: (rows: GridRows, total: number) => void): Promise<{ rows: TextResult; total: number }> {
    if (!view.filters.length && !view.sort) {
      const offset = view.page * PAGE_ROWS;
      const inSight = grid.columnsInSight();
      if (inSight < 1 || inSight >= columns.length) return { rows: await naturalRows(table!, files, offset, PAGE_ROWS), total: tableRows };
      const first = await naturalRows(table!, files, offset, PAGE_ROWS, table!.columns.slice(0, inSight));
      const notYet = Array.from({ length: columns.length - inSight }, () => undefined);
      early({ rowCount: first.rowCount, rows: (from, to) => first.rows(from, to).map((row) => [...row, ...notYet]) }, tableRows);
      return { rows: sideBySide(first, await naturalRows(table!, files, offset, PAGE_ROWS, table!.columns.slice(inSight))), total: tableRows };
    }
    if (!database) status.textContent = texts.loadingDuckdb;
    const db = await open();
    const total = view.filters.length ? Number((await db.query(countSql(name, view.filters))).rows()[0]![0]) : tableRows;
    // The whole table sorted: its footers' statistics bound where the page's values lie, so the
    // sort column is read of the row groups within that bound alone.
    const hint =
      view.sort && !view.filters.length ? await statisticsBound(table!, files, view.sort.column, view.sort.descending, (view.page + 1) * PAGE_ROWS) : undefined;
    const within: Filter[] =
      hint === undefined ? [] : [{ column: view.sort!.column, kind: 'range', ...(view.sort!.descending ? { from: hint } : { to: hint }) }];
    const sortColumn = columns.find((column) => column.name === view.sort?.column);
    const boundary = sortColumn && boundable(sortColumn) ? boundarySql(name, { ...view, filters: [...view.filters, ...within] }) : undefined;
    const bound = boundary ? (await db.query(boundary)).rows()[0]?.[0] : undefined;
    return { rows: await db.query(boundedPageSql(name, view, key, bound)), total };
  }

  /** Sort buttons and, with statistics, a chart above each column. */
  function drawHeaders(stats: TableStatistics | undefined) {
    for (const column of columns) {
      const cell = grid.header(column.name);
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'sort-button';
      button.dataset.sort = column.name;
      button.textContent = column.name;
      button.setAttribute('aria-label', fill(texts.sortBy, { column: column.name }));
      button.addEventListener('click', () => {
        // Ascending, descending, then the files' order again.
        const sort =
          state.sort?.column !== column.name
            ? { column: column.name, descending: false }
            : !state.sort.descending
              ? { ...state.sort, descending: true }
              : undefined;
        change({ ...state, sort, page: 0 });
      });
      const chartStats = stats?.columns.find((candidate) => candidate.name === column.name);
      cell.replaceChildren(button, ...(chartStats ? [columnChart(chartStats, texts.chart, format)] : []));
    }
  }

  function markSort() {
    for (const column of columns) {
      const cell = grid.header(column.name);
      cell.setAttribute('aria-sort', state.sort?.column !== column.name ? 'none' : state.sort.descending ? 'descending' : 'ascending');
    }
  }

  let shownView = 0;
  async function show(view: ViewState): Promise<void> {
    const asked = ++shownView;
    root.setAttribute('aria-busy', 'true');
    problem.hidden = true;
    const sql = pageSql(name, view, key);
    sqlText.textContent = sql;
    openSql.href = `${openSql.dataset.queryPage}?sql=${encodeURIComponent(sql)}`;
    showFilters(filterList, view.filters, texts, (index) => change({ ...view, filters: view.filters.filter((_, i) => i !== index), page: 0 }));
    markSort();
    if (status.textContent === '') status.textContent = texts.reading;
    let drawn = false;
    const draw = (rows: GridRows, total: number) => {
      // The rest of the columns of rows already drawn: the reader may have scrolled meanwhile.
      grid.show(rows, { keepScroll: drawn });
      drawn = true;
      const pages = Math.max(1, Math.ceil(total / PAGE_ROWS));
      const from = view.page * PAGE_ROWS;
      status.textContent = total
        ? fill(texts.total, { rows: format(total), count: total, from: format(Math.min(total, from + 1)), to: format(from + rows.rowCount) }, lang)
        : texts.totalNone;
      status.dataset.total = String(total);
      pageText.textContent = fill(texts.pageOf, { page: format(view.page + 1), pages: format(pages) });
      previous.disabled = view.page === 0;
      next.disabled = view.page + 1 >= pages;
    };
    try {
      const { rows, total } = await read(view, (early, total) => {
        if (asked === shownView) draw(early, total);
      });
      if (asked !== shownView) return;
      draw(rows, total);
    } catch (failure) {
      if (asked !== shownView) return;
      problem.hidden = false;
      problem.textContent = fill(texts.failed, { message: failure instanceof Error ? failure.message : String(failure) });
    } finally {
      if (asked === shownView) root.removeAttribute('aria-busy');
    }
  }

  /** A new view: in the URL (a step back in history returns to the one before), then shown. */
  function change(view: ViewState) {
    state = view;
    const query = viewQuery(view);
    history.pushState(null, '', `${location.pathname}${query ? `?${query}` : ''}`);
    facetList.hidden = true;
    void show(view);
  }
  const addFilter = (filter: Filter) => change({ ...state, filters: [...state.filters, filter], page: 0 });

  async function facet(column: string) {
    const top = !state.filters.length ? statistics?.columns.find((candidate) => candidate.name === column)?.top : undefined;
    try {
      const values =
        top?.slice(0, FACET_VALUES) ??
        (await (await open()).query(facetSql(name, column, state.filters))).rows().map(([value, count]) => ({ value: value ?? null, count: Number(count) }));
      showFacet(facetList, column, values, texts, format, addFilter);
    } catch (failure) {
      problem.hidden = false;
      problem.textContent = fill(texts.failed, { message: failure instanceof Error ? failure.message : String(failure) });
    }
  }

  drawHeaders(statistics);
  mountFilterForm(find<HTMLFormElement>('[data-explorer-filter]'), columns, addFilter);
  find<HTMLFormElement>('[data-explorer-facet]').addEventListener('submit', (event) => {
    event.preventDefault();
    void facet(facetColumn.value);
  });
  previous.addEventListener('click', () => change({ ...state, page: Math.max(0, state.page - 1) }));
  next.addEventListener('click', () => change({ ...state, page: state.page + 1 }));
  window.addEventListener('popstate', () => {
    state = viewOfQuery(location.search, columns);
    void show(state);
  });
  for (const button of root.querySelectorAll<HTMLButtonElement>('[data-explorer-download]')) {
    button.addEventListener('click', async () => {
      const kind = button.dataset.explorerDownload as 'csv' | 'json' | 'parquet';
      const before = status.textContent;
      status.textContent = texts.preparing;
      button.disabled = true;
      try {
        const { viewFile, save } = await import('./view-downloads.ts');
        save(await viewFile(await open(), viewSql(name, state, key), kind), `${name}.${kind}`, root);
        status.textContent = before;
      } catch (failure) {
        problem.hidden = false;
        problem.textContent = fill(texts.failed, { message: failure instanceof Error ? failure.message : String(failure) });
      } finally {
        button.disabled = false;
      }
    });
  }
  await show(state);
}
