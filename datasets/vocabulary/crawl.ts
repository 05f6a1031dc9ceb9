import type { Endpoint } from './endpoint.ts';

/**
 * How a data set is crawled from a v1 upstream, declared as data: what to enumerate, how to page,
 * what fans out per parent or per date window. Each step names one of the data set's endpoints
 * (path relative to its prefix), whose answer already says which resource it holds, its time
 * column and its parents; the step adds only what crawling needs. The crawler in scripts/pull/
 * runs any plan, step by step in the order given, so a step fans out over rows an earlier one
 * fetched.
 */

/** The days a parent row spans, from two of its columns (days or instants; a null end is today). */
export interface Span {
  readonly from: string;
  readonly to: string;
}

/** One array of a captured answer, stored as a resource; children are arrays inside its entries. */
export interface CapturePart {
  readonly field: string;
  readonly resource: string;
  /** Arrays inside each entry, parsed with parameter `param` set to the entry's field `from`. */
  readonly children?: readonly { readonly field: string; readonly resource: string; readonly param: string; readonly from: string }[];
}

export type CrawlStep =
  /** Every endpoint answered by a stored document (the register's dictionaries), fetched whole each pull. */
  | { readonly kind: 'documents' }
  /** A `list` endpoint: an array of one resource, fetched whole each pull. */
  | { readonly kind: 'list'; readonly path: string }
  /**
   * A `page` endpoint, `{ items, pagination }` by offset, re-scanned each pull; `id` is the item
   * field that identifies it. With `detail` (an `item` endpoint taking that id), items are a list
   * form and each one's full resource is fetched from there, only when the item is new or changed.
   */
  | { readonly kind: 'pages'; readonly path: string; readonly id: string; readonly limit: number; readonly detail?: string }
  /**
   * A `numbered-page` endpoint, `{ data, hasNextPage }`, asked in from/to windows of at most
   * `days` days that cover the span of every row of the resource `over`.
   */
  | { readonly kind: 'windows'; readonly path: string; readonly over: { readonly resource: string } & Span; readonly days: number; readonly pageSize: number }
  /**
   * A `series` endpoint (its records in `field`) for every combination of its parents, in from/to
   * windows of `days` days: across the first parent's `span`, or without one backwards from
   * today until two windows in a row come back empty. `where` keeps the parents (by parameter)
   * whose columns hold the given values.
   */
  | {
      readonly kind: 'series';
      readonly path: string;
      readonly field: string;
      readonly days: number;
      readonly span?: Span;
      readonly where?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
    }
  /** A `custom` endpoint showing the present (live data), captured once per pull and kept as history. */
  | { readonly kind: 'capture'; readonly path: string; readonly parts: readonly CapturePart[] };

export type CrawlPlan = readonly CrawlStep[];

const answerKindOf: Record<Exclude<CrawlStep['kind'], 'documents'>, string> = {
  list: 'list',
  pages: 'page',
  windows: 'numbered-page',
  series: 'series',
  capture: 'custom',
};

/**
 * What is wrong with a plan: steps naming endpoints, resources or columns that do not exist, or
 * endpoints answered otherwise than the step reads them. Checked when a data set is defined.
 */
export function crawlProblems(
  plan: CrawlPlan,
  endpoints: readonly Endpoint[],
  resources: Readonly<Record<string, { table: string; parse?: unknown }>>,
  columnsOf: (resource: string) => readonly string[] | undefined,
): string[] {
  const problems: string[] = [];
  const endpoint = (path: string, kind: string) => {
    const found = endpoints.find((e) => e.path === path);
    if (!found) problems.push(`crawls ${path}, which the data set does not declare`);
    else if (found.answer.kind !== kind) problems.push(`crawls ${path} as a ${kind} endpoint, but it is answered as ${found.answer.kind}`);
    return found;
  };
  const stored = (resource: string) => {
    if (!resources[resource]) problems.push(`stores resource "${resource}", which the data set does not declare`);
    else if (!resources[resource].parse) problems.push(`stores resource "${resource}", which has no parse function`);
  };
  const column = (resource: string, name: string) => {
    const columns = columnsOf(resource);
    if (columns && !columns.includes(name)) problems.push(`reads column "${name}" of ${resource}, which its table does not have`);
  };
  for (const step of plan) {
    if (step.kind === 'documents') {
      endpoints.filter((e) => e.answer.kind === 'document').forEach((e) => stored((e.answer as { resource: string }).resource));
      continue;
    }
    const found = endpoint(step.path, answerKindOf[step.kind]);
    if (!found) continue;
    switch (step.kind) {
      case 'pages':
        if (step.detail) {
          const detail = endpoint(step.detail, 'item');
          if (detail && !detail.pathParams.includes(step.id)) problems.push(`fetches details from ${step.detail}, which does not take {${step.id}}`);
          if (detail?.answer.kind === 'item') stored(detail.answer.resource);
        } else if (found.answer.kind === 'page') stored(found.answer.resource);
        break;
      case 'list':
      case 'windows':
      case 'series':
        if ('resource' in found.answer) stored(found.answer.resource);
        if (step.kind === 'windows') [step.over.from, step.over.to].forEach((c) => column(step.over.resource, c));
        if (step.kind === 'series' && step.span && found.answer.kind === 'series') {
          const first = found.answer.parents[0]!.resource;
          [step.span.from, step.span.to].forEach((c) => column(first, c));
        }
        break;
      case 'capture':
        for (const part of step.parts) {
          stored(part.resource);
          part.children?.forEach((child) => stored(child.resource));
        }
        break;
    }
  }
  return problems;
}
