import { facetFilter, kindsFor, type Filter, type FilterKind, type ViewColumn } from './table-view.ts';
import { fill } from './texts.ts';

/**
 * The filter controls of a table page (TableView.astro has their markup): the form that adds a
 * filter on a column, the list of filters in force, each removable, and a column's facet, its
 * most frequent values, each adding a filter when clicked.
 */

export interface FilterTexts {
  /** How a filter in force reads, by kind: `{column}`, `{value}`, `{from}`, `{to}`, `{text}`. */
  readonly chip: Readonly<Record<FilterKind, string>>;
  /** A range with one end: `{column}`, `{value}`. */
  readonly atLeast: string;
  readonly atMost: string;
  /** The remove button's accessible name: `{filter}`. */
  readonly remove: string;
  /** A facet value's button: `{value}`, `{count}`. */
  readonly facetValue: string;
  readonly nullValue: string;
}

/** A filter in the words of the page. */
export function filterText(filter: Filter, texts: FilterTexts): string {
  const column = filter.column;
  switch (filter.kind) {
    case 'equals':
      return fill(texts.chip.equals, { column, value: filter.value });
    case 'contains':
      return fill(texts.chip.contains, { column, text: filter.text });
    case 'range':
      if (filter.from !== undefined && filter.to !== undefined) return fill(texts.chip.range, { column, from: filter.from, to: filter.to });
      return filter.from !== undefined ? fill(texts.atLeast, { column, value: filter.from }) : fill(texts.atMost, { column, value: filter.to ?? '' });
    default:
      return fill(texts.chip[filter.kind], { column });
  }
}

/** The form that adds a filter: `add` is told of each, already checked to be whole. */
export function mountFilterForm(form: HTMLFormElement, columns: readonly ViewColumn[], add: (filter: Filter) => void): void {
  const field = <T extends HTMLElement>(name: string) => form.querySelector<T>(`[data-filter-${name}]`)!;
  const column = field<HTMLSelectElement>('column');
  const kind = field<HTMLSelectElement>('kind');
  const value = field<HTMLInputElement>('value');
  const from = field<HTMLInputElement>('from');
  const to = field<HTMLInputElement>('to');
  const byName = new Map(columns.map((candidate) => [candidate.name, candidate]));

  /** Only the kinds the column's type takes, and only the inputs the kind needs. */
  const fitToColumn = () => {
    const kinds = new Set(kindsFor(byName.get(column.value)!));
    for (const option of kind.options) option.disabled = !kinds.has(option.value as FilterKind);
    if (kind.selectedOptions[0]?.disabled) kind.value = [...kinds][0]!;
    const chosen = kind.value as FilterKind;
    for (const input of [value, from, to]) input.closest<HTMLElement>('[data-filter-input]')!.hidden = true;
    if (chosen === 'equals' || chosen === 'contains') value.closest<HTMLElement>('[data-filter-input]')!.hidden = false;
    if (chosen === 'range') for (const input of [from, to]) input.closest<HTMLElement>('[data-filter-input]')!.hidden = false;
  };
  column.addEventListener('change', fitToColumn);
  kind.addEventListener('change', fitToColumn);
  fitToColumn();

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = column.value;
    const chosen = kind.value as FilterKind;
    const filter: Filter | undefined =
      chosen === 'equals'
        ? { column: name, kind: 'equals', value: value.value }
        : chosen === 'contains'
          ? value.value
            ? { column: name, kind: 'contains', text: value.value }
            : undefined
          : chosen === 'range'
            ? from.value || to.value
              ? { column: name, kind: 'range', ...(from.value ? { from: from.value } : {}), ...(to.value ? { to: to.value } : {}) }
              : undefined
            : { column: name, kind: chosen };
    if (!filter) return;
    add(filter);
    for (const input of [value, from, to]) input.value = '';
  });
}

/** The filters in force, each with a button that removes it. */
export function showFilters(list: HTMLElement, filters: readonly Filter[], texts: FilterTexts, remove: (index: number) => void): void {
  list.replaceChildren(
    ...filters.map((filter, index) => {
      const item = document.createElement('li');
      const words = filterText(filter, texts);
      const label = document.createElement('span');
      label.textContent = words;
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'link-button';
      button.textContent = '×';
      button.setAttribute('aria-label', fill(texts.remove, { filter: words }));
      button.dataset.removeFilter = String(index);
      button.addEventListener('click', () => remove(index));
      item.append(label, ' ', button);
      return item;
    }),
  );
  list.hidden = filters.length === 0;
}

/** A column's facet: its values with their counts, each a button adding that value as a filter. */
export function showFacet(
  list: HTMLElement,
  column: string,
  values: readonly { value: string | null; count: number }[],
  texts: FilterTexts,
  format: (n: number) => string,
  add: (filter: Filter) => void,
): void {
  const highest = Math.max(...values.map((value) => value.count), 1);
  list.replaceChildren(
    ...values.map(({ value, count }) => {
      const item = document.createElement('li');
      item.style.setProperty('--share', `${(100 * count) / highest}%`);
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'link-button';
      button.dataset.facetValue = value ?? '';
      if (value === null) button.dataset.facetNull = '';
      button.textContent = fill(texts.facetValue, { value: value ?? texts.nullValue, count: format(count) });
      button.addEventListener('click', () => add(facetFilter(column, value)));
      item.append(button);
      return item;
    }),
  );
  list.hidden = false;
}
