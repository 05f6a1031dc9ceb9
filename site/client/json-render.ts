import { isSiteJson, viewerUrl } from './json-links.ts';
import { fill } from './texts.ts';
import { decodeUriPart } from './uri-part.ts';

/**
 * Any JSON value of the static tree as HTML, by its shape alone (the viewer knows no data set): an
 * array of objects is a table whose columns are its items' fields, an object a definition list,
 * a string naming a JSON file of this site a link that opens it in the viewer.
 */

export interface ViewerTexts {
  readonly loading: string;
  readonly sameOrigin: string;
  readonly failed: string;
  readonly notJson: string;
  readonly noUrl: string;
  readonly items: string;
  readonly nItems: string;
  readonly of: string;
  readonly next: string;
  readonly prev: string;
  readonly first: string;
  readonly last: string;
  readonly empty: string;
  readonly list: string;
  readonly fields: string;
}

/** Where links point: the viewer's own address, and the file shown (which relative links resolve against). */
export interface RenderContext {
  readonly viewer: string;
  readonly file: URL;
  readonly texts: ViewerTexts;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** The neighbour pages a pager links, in its order, each with the keys the tree's files name it by (the first found counts). */
const PAGE_LINKS = [
  ['first', ['first']],
  ['prev', ['prev', 'previous']],
  ['next', ['next']],
  ['last', ['last']],
] as const;

const isObject = (value: Json): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const isList = (value: Json): value is JsonObject[] => Array.isArray(value) && value.length > 0 && value.every(isObject);

/** The same-origin JSON file a string names, if it names one. */
function jsonFileOf(value: string, context: RenderContext): URL | undefined {
  if (!/^(\/|\.\.?\/|https?:)/.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value, context.file);
  } catch {
    return undefined;
  }
  return isSiteJson(url, context.file.origin) ? url : undefined;
}

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const made = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  made.append(...children);
  return made;
}

/** A link to a JSON file in the viewer; `label` by default the file's last path segment, without .json. */
function fileLink(url: URL, context: RenderContext, label?: string): HTMLAnchorElement {
  const name = decodeUriPart(url.pathname.split('/').filter(Boolean).at(-1) ?? url.pathname).replace(/\.json(ld)?$/, '');
  return element(
    'a',
    { href: viewerUrl(context.viewer, url), title: url.pathname + url.hash, 'data-json-view-link': '' },
    label ?? (url.hash ? `${name}${url.hash}` : name),
  );
}

function scalar(value: Exclude<Json, Json[] | JsonObject>, context: RenderContext, inTable: boolean): Node {
  if (value === null) return element('span', { class: 'muted' }, 'null');
  if (typeof value !== 'string') return element('span', { class: 'json-scalar' }, String(value));
  const file = jsonFileOf(value, context);
  if (file) return inTable ? fileLink(file, context) : fileLink(file, context, value);
  if (/^https?:\/\//.test(value)) return element('a', { href: value, rel: 'noopener' }, value);
  return document.createTextNode(value);
}

/** A value anywhere below the top. `inTable`: in a table's cell, where links show short and objects and lists fold. */
function renderValue(value: Json, context: RenderContext, inTable = false): Node {
  if (inTable && typeof value === 'object' && value !== null) return folded(value, context);
  if (Array.isArray(value)) {
    if (!value.length) return element('span', { class: 'muted' }, context.texts.empty);
    if (isList(value) && !inTable) return renderTable(value, context);
    return element('ul', { class: 'json-array' }, ...value.map((item) => element('li', {}, renderValue(item, context, inTable))));
  }
  if (isObject(value)) return renderFields(value, context, inTable);
  return scalar(value, context, inTable);
}

/** An object or a list in a table's cell: folded under a line saying what it holds, so that rows stay a line or two. */
function folded(value: Json[] | JsonObject, context: RenderContext): Node {
  const entries = Array.isArray(value) ? value : Object.values(value);
  if (!entries.length) return element('span', { class: 'muted' }, context.texts.empty);
  // One scalar inside (a reference's single id, a one-item list): shown as it is.
  const only = entries.length === 1 ? entries[0]! : undefined;
  if (only !== undefined && (only === null || typeof only !== 'object')) return scalar(only, context, true);
  const summary = Array.isArray(value) ? fill(context.texts.nItems, { count: value.length }) : Object.keys(value).join(', ');
  const inside = Array.isArray(value)
    ? element(
        'ul',
        { class: 'json-array' },
        ...value.map((item) => element('li', {}, isObject(item) ? renderFields(item, context, true) : renderValue(item, context, true))),
      )
    : renderFields(value, context, true);
  return element('details', { class: 'json-fold' }, element('summary', {}, summary), inside);
}

/** An object as a definition list of its fields. */
function renderFields(value: JsonObject, context: RenderContext, inTable = false): HTMLElement {
  const entries = Object.entries(value);
  if (!entries.length) return element('span', { class: 'muted' }, context.texts.empty);
  return element(
    'dl',
    { class: inTable ? 'json-fields compact' : 'json-fields' },
    ...entries.flatMap(([key, item]) => [element('dt', {}, key), element('dd', {}, renderValue(item, context, inTable))]),
  );
}

/**
 * The part of the file shown an item is, if it names itself: a field linking to this file with a
 * fragment (a dictionary's term, `…/market-types.json#code-1`), whose fragment is then its row's id.
 */
function selfFragment(item: JsonObject, context: RenderContext): string | undefined {
  for (const value of Object.values(item)) {
    const url = typeof value === 'string' ? jsonFileOf(value, context) : undefined;
    if (url?.hash && url.pathname === context.file.pathname && url.search === context.file.search) return decodeUriPart(url.hash.slice(1));
  }
  return undefined;
}

/** Items as a table: a column per field, in the order fields first appear; a row with the id of the part of the file it is, if it names one. */
function renderTable(items: readonly JsonObject[], context: RenderContext): HTMLElement {
  const columns = [...new Set(items.flatMap((item) => Object.keys(item)))];
  const head = element('thead', {}, element('tr', {}, ...columns.map((column) => element('th', { scope: 'col' }, column))));
  const ids = new Set<string>();
  const rows = items.map((item) => {
    const id = selfFragment(item, context);
    const unique = id !== undefined && !ids.has(id) && !document.getElementById(id);
    if (unique) ids.add(id);
    return element(
      'tr',
      unique ? { id } : {},
      ...columns.map((column) => element('td', { 'data-label': column }, column in item ? renderValue(item[column]!, context, true) : '')),
    );
  });
  return element('div', { class: 'table-scroll' }, element('table', { class: 'json-table', 'data-json-view-table': '' }, head, element('tbody', {}, ...rows)));
}

/** Links to the file's neighbour pages, wherever the file names them: at its top or in an object of its own (`pagination`). */
function pagerOf(value: JsonObject, context: RenderContext): HTMLElement | undefined {
  const holders = [value, ...Object.values(value).filter(isObject)];
  const links = PAGE_LINKS.flatMap(([rel, keys]) => {
    const target = keys.flatMap((key) => holders.map((holder) => holder[key])).find((candidate): candidate is string => typeof candidate === 'string');
    const file = target === undefined ? undefined : jsonFileOf(target, context);
    return file ? [element('a', { href: viewerUrl(context.viewer, file), rel, 'data-json-view-page': rel }, context.texts[rel])] : [];
  });
  return links.length ? element('nav', { class: 'pager', 'aria-label': context.texts.list }, ...links) : undefined;
}

/**
 * Fields beside a file's lists up to which the file is a page of a list (items with their
 * pagination, a day's readings), not a record that holds a list among its fields.
 */
const LIST_FILE_FIELDS = 4;

/** A whole file: a list page's lists as tables, the rest of its fields after them, its pages linked above and below; a record as its fields. */
export function renderFile(value: Json, context: RenderContext): Node[] {
  if (isList(value)) return [element('p', {}, fill(context.texts.items, { count: value.length })), renderTable(value, context)];
  if (!isObject(value)) return [renderValue(value, context)];
  const lists = Object.entries(value).filter((entry): entry is [string, JsonObject[]] => isList(entry[1]));
  const rest = Object.fromEntries(Object.entries(value).filter(([, item]) => !isList(item)));
  const pager = pagerOf(value, context);
  if (!lists.length || (!pager && Object.keys(rest).length > LIST_FILE_FIELDS))
    return [...(pager ? [pager] : []), element('section', { 'data-json-view-fields': '' }, renderFields(value, context))];
  const total = Object.values(value)
    .filter(isObject)
    .map((holder) => holder.total)
    .find((candidate) => typeof candidate === 'number');
  const sections = lists.map(([key, items]) =>
    element(
      'section',
      { 'data-json-view-list': key },
      element('h2', {}, key),
      element('p', {}, fill(context.texts.items, { count: items.length }), total !== undefined ? ` ${fill(context.texts.of, { total })}` : ''),
      renderTable(items, context),
    ),
  );
  const fields = Object.keys(rest).length
    ? [element('section', { 'data-json-view-fields': '' }, element('h2', {}, context.texts.fields), renderFields(rest, context))]
    : [];
  return [...(pager ? [pager] : []), ...sections, ...fields, ...(pager ? [pager.cloneNode(true)] : [])];
}
