import { z } from 'zod';
import { FACTS, type EndpointManifest, type EnvelopeTemplate, type Fact, type NextRule } from '../../core/snapshot/manifest.ts';
import type { Endpoint } from '../vocabulary/endpoint.ts';
import { memberSpans, minify } from '../vocabulary/json-text.ts';
import { queryString, resolveLinks, type RenderContext } from '../vocabulary/render.ts';
import { resolvedText, WrittenJson } from '../vocabulary/written.ts';

/**
 * An answer's envelope (what holds its records: `{ items, pagination }`, `{ data, page, … }`,
 * `{ readings }`) as its upstream writes it. The spec names some keys; an upstream may add its own
 * and write them in any order. A pull learns, per endpoint, one envelope as written (the order of
 * its keys, the text of its own keys), which of its own keys follow the page and how, and how it
 * writes `next`; the mirror's envelopes are arranged by what it learned.
 */

export { FACTS, type EnvelopeTemplate, type Fact, type NextRule } from '../../core/snapshot/manifest.ts';

/** The facts of one page, as far as they are known (a numbered page does not tell its total). */
export type PageFacts = Partial<Record<Fact, number>>;

/** What one answer showed of its envelope, for a pull to learn from (see learnEnvelope). */
export interface EnvelopeSeen {
  /** The envelope as written, minified, its records left out. */
  readonly text: string;
  /** The upstream's own keys (dotted paths), each with its value's text. */
  readonly own: Readonly<Record<string, string>>;
  readonly facts: PageFacts;
}

/** What one page showed of its `next`: the query asked (in its order), the page the link should lead to, and the link as written. */
export interface NextSeen {
  readonly asked: string;
  readonly limit: number;
  readonly offset: number;
  readonly next: string;
}

type Shape = Readonly<Record<string, z.ZodType>>;

/** The object schema inside optional, nullable and described wrappers, if it is one. */
function unwrapped(schema: z.ZodType): z.ZodType {
  let inner = schema;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable || inner instanceof z.ZodDefault) inner = inner.unwrap() as z.ZodType;
  return inner;
}

const shapeOf = (schema: z.ZodType): Shape | undefined => {
  const inner = unwrapped(schema);
  return inner instanceof z.ZodObject ? (inner.shape as Shape) : undefined;
};

/**
 * The envelope of an answer's text as written: minified, the records' arrays (the spec's array
 * keys) emptied and the spec's other values null; and the keys the spec does not name, with
 * their texts. Undefined for an answer that is no object, or an endpoint whose answer has none.
 */
export function envelopeSeen(text: string, endpoint: Endpoint, facts: PageFacts): EnvelopeSeen | undefined {
  const shape = shapeOf(endpoint.response);
  if (!shape) return undefined;
  const minified = minify(text);
  if (minified.charCodeAt(0) !== 0x7b) return undefined;
  const own: Record<string, string> = {};
  const walk = (at: number, shape: Shape, prefix: string): string => {
    let out = '{';
    for (const [key, [start, end]] of memberSpans(minified, at)) {
      const path = `${prefix}${key}`;
      const named = shape[key];
      const inner = named && unwrapped(named);
      let value = minified.slice(start, end);
      if (!named) own[path] = value;
      else if (inner instanceof z.ZodArray) value = '[]';
      else if (inner instanceof z.ZodObject && minified.charCodeAt(start) === 0x7b) value = walk(start, inner.shape as Shape, `${path}.`);
      // The spec's own values are the mirror's to write: only where they stand is kept.
      else value = 'null';
      out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${value}`;
    }
    return `${out}}`;
  };
  return { text: walk(0, shape, ''), own, facts };
}

/** A fact's value for a page, when the page's facts give it. */
function factOf(fact: Fact, facts: PageFacts): number | undefined {
  if (fact !== 'pages') return facts[fact];
  return facts.total === undefined || !facts.pageSize ? undefined : Math.ceil(facts.total / facts.pageSize);
}

/**
 * What an endpoint's answers showed of its envelope: the first as written; own keys that one
 * fact explained in every answer follow it; others with the same text in every answer are kept
 * as written; the rest are left out and said. `seen` may come from many units of work, and a
 * pull asks pages of other sizes (see the crawls) so that a count is seen to vary.
 */
export function learnEnvelope(seen: readonly EnvelopeSeen[]): { template?: EnvelopeTemplate; constant: Record<string, unknown> } {
  if (!seen.length) return { constant: {} };
  const paths = new Set(seen.flatMap((s) => Object.keys(s.own)));
  const derived: Record<string, Fact> = {};
  const unknown: string[] = [];
  const constant: Record<string, unknown> = {};
  for (const path of paths) {
    const texts = seen.map((s) => s.own[path]);
    // A fact every value was, where the fact itself took more than one value: a key that is
    // always 1 is as much a constant as the page count of lists of one page.
    const follows = (f: Fact) => seen.every((s) => s.own[path] !== undefined && Number(s.own[path]) === factOf(f, s.facts));
    const fact = FACTS.find((f) => new Set(seen.map((s) => factOf(f, s.facts))).size > 1 && follows(f));
    if (fact) derived[path] = fact;
    // The same as a list's total in every answer, which never changed (a list with no filter to
    // empty it, see the page crawl): a count or a constant, which the answers cannot tell.
    else if (seen[0]!.facts.total !== undefined && follows('total')) unknown.push(path);
    else if (texts.every((text) => text !== undefined && text === texts[0])) {
      if (!path.includes('.')) constant[path] = JSON.parse(texts[0]!);
    } else unknown.push(path);
  }
  return {
    template: { text: seen[0]!.text, ...(Object.keys(derived).length ? { derived } : {}), ...(unknown.length ? { unknown } : {}) },
    constant,
  };
}

/** The query of a `next` link an upstream following `rule` writes for a page asked with `asked`. */
export function nextQuery(
  rule: NextRule['order'],
  asked: Readonly<Record<string, string | number>>,
  paging: { limit: number; offset: number },
  declared: readonly string[],
): Record<string, string | number> {
  const query: Record<string, string | number> = { ...asked, limit: paging.limit, offset: paging.offset };
  if (rule === 'asked') return query;
  const rank = (name: string) => (declared.includes(name) ? declared.indexOf(name) : declared.length);
  return Object.fromEntries(Object.entries(query).sort(([a], [b]) => rank(a) - rank(b)));
}

/** The order the spec lists an endpoint's query parameters in (path parameters aside; `version` last). */
export const declaredOrder = (endpoint: Endpoint): string[] => Object.keys(endpoint.params).filter((name) => !endpoint.pathParams.includes(name));

/** The `next` link of a rule, on the upstream's public address `base` (a path: on the path of that address). */
export function nextLink(rule: NextRule, base: string, path: string, query: Readonly<Record<string, string | number>>): string {
  const search = queryString(query);
  if (rule.form === 'absolute') return `${base}${path}${search}`;
  return rule.form === 'path' ? `${new URL(base).pathname.replace(/\/+$/, '')}${path}${search}` : search;
}

const NEXT_RULES: readonly NextRule[] = (['absolute', 'path', 'query'] as const).flatMap((form) =>
  (['asked', 'declared'] as const).map((order) => ({ form, order })),
);

/**
 * The rule every `next` seen follows (the first, where more than one do), on the upstream's
 * public address; undefined where none does.
 */
export function learnNext(seen: readonly NextSeen[], endpoint: Endpoint, publicBase: string): NextRule | undefined {
  const declared = declaredOrder(endpoint);
  return NEXT_RULES.find((rule) =>
    seen.every(
      ({ asked, limit, offset, next }) =>
        nextLink(rule, publicBase, endpoint.fullPath, nextQuery(rule.order, Object.fromEntries(new URLSearchParams(asked)), { limit, offset }, declared)) ===
        next,
    ),
  );
}

/**
 * An endpoint's envelope as the mirror answers it in one context (the server's base, or the
 * static tree's): what the snapshot learned of it (see EndpointManifest), links resolved.
 */
export interface Envelope {
  /** The upstream's own keys with the same value in every answer (what an older pull kept, and all it kept). */
  readonly constant?: Readonly<Record<string, unknown>>;
  /** The template's text with its links resolved, and its keys in order (the text parsed). */
  readonly written?: {
    readonly text: string;
    readonly order: Readonly<Record<string, unknown>>;
    readonly derived: Readonly<Record<string, Fact>>;
    readonly unknown: readonly string[];
  };
  readonly next?: NextRule;
}

/** What a snapshot learned of an endpoint's envelope (its manifest entry), resolved for a context; undefined when it learned nothing. */
export function envelopeFor(entry: EndpointManifest | undefined, context: RenderContext): Envelope | undefined {
  if (!entry || (!entry.envelope && !entry.template && !entry.next)) return undefined;
  const text = entry.template && resolvedText(entry.template.text, context);
  return {
    ...(entry.envelope ? { constant: resolveLinks(entry.envelope, context) as Record<string, unknown> } : {}),
    ...(text
      ? {
          written: { text, order: JSON.parse(text) as Record<string, unknown>, derived: entry.template!.derived ?? {}, unknown: entry.template!.unknown ?? [] },
        }
      : {}),
    ...(entry.next ? { next: entry.next } : {}),
  };
}

const isPlain = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof WrittenJson);

/**
 * The body with its envelope as the upstream writes it: its keys in the template's order (nested
 * objects too), its own constant keys as written, its derived keys from the page's facts (left
 * out where the facts do not give them); keys the template lacks after them. Without a template:
 * the own constant keys after the spec's. A bare array has no envelope.
 */
export function enveloped<T>(body: T, envelope: Envelope | undefined, facts: PageFacts = {}): T {
  if (!envelope || !isPlain(body)) return body;
  const written = envelope.written;
  if (!written) return envelope.constant ? ({ ...body, ...envelope.constant } as T) : body;
  const arrange = (value: Record<string, unknown>, order: Readonly<Record<string, unknown>>, at: number, prefix: string): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    const spans = new Map(memberSpans(written.text, at));
    for (const key of Object.keys(order)) {
      const path = `${prefix}${key}`;
      const inner = value[key];
      if (key in value) out[key] = isPlain(inner) && isPlain(order[key]) ? arrange(inner, order[key], spans.get(key)![0], `${path}.`) : inner;
      else if (written.derived[path]) {
        const fact = factOf(written.derived[path], facts);
        if (fact !== undefined) out[key] = fact;
      } else if (!written.unknown.includes(path)) {
        const [start, end] = spans.get(key)!;
        out[key] = new WrittenJson(written.text.slice(start, end));
      }
    }
    for (const [key, inner] of Object.entries(value)) if (!(key in out)) out[key] = inner;
    return out;
  };
  return arrange(body, written.order, 0, '') as T;
}

/** Whether the envelope has a key that follows how many records the request matches (which a numbered page must count for). */
export const needsTotal = (envelope: Envelope | undefined): boolean =>
  Object.values(envelope?.written?.derived ?? {}).some((fact) => fact === 'total' || fact === 'pages');

/** The `next` link of a page the mirror answers: as its upstream writes them, else on the context's address in the order asked. */
export function mirroredNext(
  envelope: Envelope | undefined,
  endpoint: Endpoint,
  path: string,
  asked: Readonly<Record<string, string>>,
  paging: { limit: number; offset: number },
  context: RenderContext,
): string {
  const rule = envelope?.next ?? { form: 'absolute', order: 'asked' };
  const query = nextQuery(rule.order, asked, paging, declaredOrder(endpoint));
  // On the address: the context's link, which the static tree routes to its files. `path` is the mirror's own, as asked.
  return rule.form === 'absolute' ? context.link(path, query) : rule.form === 'path' ? `${path}${queryString(query)}` : queryString(query);
}
