import type { BrowserDatabase } from './browser-duckdb.ts';
import { csvOf, type TextResult } from './sql-result.ts';
import { dataOf, fill } from './texts.ts';

/**
 * The SQL editor of the query page (SqlConsole.astro): runs the query with DuckDB-WASM, loaded
 * on the first run, shows the result as a table (the first MAX_SHOWN rows) and offers all of it
 * as CSV. Failures are shown in the page, never thrown.
 */

const MAX_SHOWN = 200;

interface Texts {
  readonly idle: string;
  readonly loading: string;
  readonly running: string;
  readonly done: string;
  readonly capped: string;
  readonly failed: string;
  readonly loadFailed: string;
  readonly noColumns: string;
  readonly caption: string;
  readonly inserted: string;
  readonly fromAddress: string;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function mountSqlConsole(root: HTMLElement): void {
  const texts = dataOf<Texts>(root, 'texts');
  // The page's language, for the plural forms of its words.
  const lang = root.closest<HTMLElement>('[lang]')?.lang || 'en';
  const catalogueUrl = root.dataset.catalogue!;
  const find = <T extends Element>(selector: string) => root.querySelector<T>(selector)!;
  const form = find<HTMLFormElement>('[data-sql-form]');
  const editor = find<HTMLTextAreaElement>('[data-sql-text]');
  const run = find<HTMLButtonElement>('[data-sql-run]');
  const download = find<HTMLButtonElement>('[data-sql-download]');
  const status = find<HTMLElement>('[data-sql-status]');
  const error = find<HTMLElement>('[data-sql-error]');
  const output = find<HTMLElement>('[data-sql-result]');

  let database: Promise<BrowserDatabase> | undefined;
  let last: TextResult | undefined;
  let busy = false;

  const open = () =>
    (database ??= import('./browser-duckdb.ts')
      .then((module) => module.openBrowserDatabase(catalogueUrl))
      .catch((failure: unknown) => {
        // Let the next run try again.
        database = undefined;
        throw new Error(fill(texts.loadFailed, { message: messageOf(failure) }));
      }));

  const showError = (message: string | undefined) => {
    error.hidden = !message;
    error.textContent = message ?? '';
  };

  async function execute() {
    if (busy) return;
    busy = true;
    run.disabled = true;
    root.setAttribute('aria-busy', 'true');
    showError(undefined);
    try {
      const loading = !database;
      if (loading) status.textContent = texts.loading;
      const db = await open();
      status.textContent = texts.running;
      const started = performance.now();
      const result = await db.query(editor.value).catch((failure: unknown) => {
        throw new Error(fill(texts.failed, { message: messageOf(failure) }));
      });
      const ms = Math.round(performance.now() - started);
      last = result;
      download.disabled = result.columns.length === 0;
      renderResult(result);
      status.textContent = result.columns.length
        ? [fill(texts.done, { rows: result.rowCount, ms }), result.rowCount > MAX_SHOWN ? fill(texts.capped, { shown: MAX_SHOWN, rows: result.rowCount }) : '']
            .join(' ')
            .trim()
        : texts.noColumns;
    } catch (failure) {
      status.textContent = '';
      showError(messageOf(failure));
    } finally {
      busy = false;
      run.disabled = false;
      root.removeAttribute('aria-busy');
    }
  }

  function renderResult(result: TextResult) {
    output.replaceChildren();
    output.hidden = result.columns.length === 0;
    if (output.hidden) return;
    const table = document.createElement('table');
    const caption = table.createCaption();
    caption.textContent = fill(texts.caption, { rows: result.rowCount }, lang);
    const head = table.createTHead().insertRow();
    for (const name of result.columns) {
      const cell = document.createElement('th');
      cell.scope = 'col';
      cell.textContent = name;
      head.append(cell);
    }
    const body = table.createTBody();
    for (const row of result.rows(0, MAX_SHOWN)) {
      const line = body.insertRow();
      for (const [column, value] of row.entries()) {
        const cell = line.insertCell();
        // On a phone a row shows as a block, each value under its column's name (components.css).
        cell.dataset.label = result.columns[column]!;
        if (value === null) {
          cell.textContent = 'NULL';
          cell.className = 'null';
        } else cell.textContent = value;
      }
    }
    output.append(table);
  }

  function saveCsv() {
    if (!last) return;
    const url = URL.createObjectURL(new Blob([csvOf(last)], { type: 'text/csv;charset=utf-8' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = 'query.csv';
    link.hidden = true;
    root.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void execute();
  });
  editor.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void execute();
    }
  });
  download.addEventListener('click', saveCsv);
  // A query in the page's address (`?sql=…`, as a table page's "open in the query page" link gives it) is put in the editor, not run: running loads DuckDB-WASM.
  const asked = new URLSearchParams(location.search).get('sql');
  if (asked) {
    editor.value = asked;
    status.textContent = texts.fromAddress;
  }
  for (const button of root.querySelectorAll<HTMLButtonElement>('[data-sql-insert]')) {
    button.addEventListener('click', () => {
      editor.value = button.dataset.sqlInsert!;
      editor.focus();
      status.textContent = fill(texts.inserted, { name: button.dataset.sqlTable ?? button.dataset.sqlExampleTable ?? '' });
    });
  }
}
