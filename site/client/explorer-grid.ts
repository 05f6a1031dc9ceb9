import { elementScroll, observeElementOffset, observeElementRect, Virtualizer } from '@tanstack/virtual-core';

/**
 * The rows of a table page in a grid that draws only the rows in sight (a page holds 500 rows of
 * up to 24 columns: 12,000 cells drawn at once made scrolling stutter on a phone). The
 * virtualiser is TanStack Virtual's core: headless and framework-free, it works out which rows are
 * in sight from the scroll box and leaves the markup to this module; it has no dependency and
 * comes bundled with the page, so nothing is fetched from elsewhere. The grid is ARIA table
 * markup on divs, each row a CSS grid of fixed-width columns, so the header, the rows and their
 * cells line up as the rows come and go; on a phone it scrolls sideways inside its own box.
 */

/** Height of a row in px: rows hold one line, cut with an ellipsis (the whole value is its title). */
const ROW_HEIGHT = 32;

export interface GridColumn {
  readonly name: string;
  readonly type: string;
}

/** Rows as the grid takes them: text, null for SQL NULL, undefined for a value not read yet. */
export interface GridRows {
  readonly rowCount: number;
  rows(from?: number, to?: number): (string | null | undefined)[][];
}

export interface Grid {
  /** Shows these rows, the first on top unless `keepScroll` (the same rows again, more of their columns read). */
  show(result: GridRows, options?: { readonly keepScroll?: boolean }): void;
  /** How many columns, from the first, the grid's box shows before it is scrolled sideways. */
  columnsInSight(): number;
  /** The header cell of a column: the page puts the sort button and the column's charts in it. */
  header(column: string): HTMLElement;
}

/** Numbers line up at the right, as in every table of the site. */
const numeric = (type: string) => /^(U?(TINYINT|SMALLINT|INTEGER|BIGINT)|DOUBLE|FLOAT|DECIMAL.*)$/.test(type);

/**
 * A grid in `root` for these columns. `record`: the link to a row's own record, when the table
 * has one (its first column is then that link). `labels.record`: the link's words.
 */
export function createGrid(
  root: HTMLElement,
  columns: readonly GridColumn[],
  record: ((row: readonly (string | null | undefined)[]) => string | undefined) | undefined,
  labels: { readonly record: string; readonly nullValue: string },
): Grid {
  const widths = [...(record ? ['4.5rem'] : []), ...columns.map((column) => (numeric(column.type) ? '8rem' : '11rem'))];
  root.style.setProperty('--explorer-columns', widths.join(' '));
  root.setAttribute('role', 'table');
  const head = document.createElement('div');
  head.className = 'explorer-head';
  head.setAttribute('role', 'rowgroup');
  const headRow = document.createElement('div');
  headRow.className = 'explorer-row';
  headRow.setAttribute('role', 'row');
  const headers = new Map<string, HTMLElement>();
  if (record) {
    const cell = document.createElement('div');
    cell.setAttribute('role', 'columnheader');
    cell.className = 'explorer-cell';
    headRow.append(cell);
  }
  for (const column of columns) {
    const cell = document.createElement('div');
    cell.setAttribute('role', 'columnheader');
    cell.className = `explorer-cell${numeric(column.type) ? ' number' : ''}`;
    cell.dataset.column = column.name;
    headers.set(column.name, cell);
    headRow.append(cell);
  }
  head.append(headRow);
  const body = document.createElement('div');
  body.className = 'explorer-body';
  body.setAttribute('role', 'rowgroup');
  root.replaceChildren(head, body);

  let shown: (string | null | undefined)[][] = [];
  const virtualizer = new Virtualizer<HTMLElement, HTMLElement>({
    count: 0,
    getScrollElement: () => root,
    estimateSize: () => ROW_HEIGHT,
    scrollToFn: elementScroll,
    observeElementRect,
    observeElementOffset,
    overscan: 12,
    onChange: () => draw(),
  });
  virtualizer._didMount();

  function rowElement(values: readonly (string | null | undefined)[], index: number): HTMLElement {
    const row = document.createElement('div');
    row.className = 'explorer-row';
    row.setAttribute('role', 'row');
    row.dataset.row = String(index);
    if (record) {
      const cell = document.createElement('div');
      cell.setAttribute('role', 'cell');
      cell.className = 'explorer-cell explorer-record';
      const href = record(values);
      if (href) {
        const link = document.createElement('a');
        link.href = href;
        link.textContent = labels.record;
        link.dataset.explorerRecord = '';
        cell.append(link);
      }
      row.append(cell);
    }
    values.forEach((value, i) => {
      const cell = document.createElement('div');
      cell.setAttribute('role', 'cell');
      if (value === undefined) {
        // Out of sight when drawn, and read a moment after the rest.
        cell.className = 'explorer-cell pending';
        cell.setAttribute('aria-busy', 'true');
      } else {
        cell.className = `explorer-cell${numeric(columns[i]!.type) ? ' number' : ''}${value === null ? ' null' : ''}`;
        cell.textContent = value ?? labels.nullValue;
        if (value !== null && value.length > 12) cell.title = value;
      }
      row.append(cell);
    });
    return row;
  }

  function draw(): void {
    const items = virtualizer.getVirtualItems();
    const first = items[0];
    // The rows in sight, moved down to where they sit; the body is as tall as all the rows.
    body.style.height = `${virtualizer.getTotalSize()}px`;
    const rows = items.map((item) => rowElement(shown[item.index]!, item.index));
    const holder = document.createElement('div');
    holder.className = 'explorer-rows';
    holder.style.transform = `translateY(${first?.start ?? 0}px)`;
    holder.append(...rows);
    body.replaceChildren(holder);
  }

  return {
    show(result, { keepScroll = false } = {}) {
      shown = result.rows();
      virtualizer.setOptions({ ...virtualizer.options, count: shown.length });
      virtualizer._willUpdate();
      if (!keepScroll) root.scrollTop = 0;
      virtualizer.measure();
      draw();
    },
    header: (column) => headers.get(column)!,
    columnsInSight() {
      const width = root.clientWidth;
      let count = 0;
      for (const column of columns) {
        if (headers.get(column.name)!.offsetLeft >= width) break;
        count++;
      }
      return count;
    },
  };
}
