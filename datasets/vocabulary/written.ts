import { z } from 'zod';
import { instantMs, offsetFormOf, offsetIn, offsetMinutes, zoneOffsetText } from '../../core/zoned-time.ts';
import { mapStrings, memberSpans, withoutMembers } from './json-text.ts';
import { BASE_URL_TOKEN, resolveLinks, type RenderContext } from './render.ts';

/**
 * A record as its upstream wrote it: the JSON text of one item of an answer, kept (in a table's
 * `upstream_json` column) and served back as it is, key order, number text and string escapes
 * included. Columns parsed from it serve filters, SQL and downloads; rendering from columns is
 * only for records no upstream wrote (the sample city) or wrote exactly as odsnap would.
 */
export class WrittenJson {
  constructor(readonly text: string) {}

  /** Outside `stringify` (a caller that wants values, not text): the value the text stands for. */
  toJSON(): unknown {
    if (spliced) return spliced.add(this.text);
    return JSON.parse(this.text);
  }
}

/** The texts a running `stringify` splices in, behind markers that carry a random nonce, so no data holds them. */
class Splice {
  private static readonly nonce = `\u0001${Math.random().toString(36).slice(2)}:`;
  readonly texts: string[] = [];
  add(text: string): string {
    return `${Splice.nonce}${this.texts.push(text) - 1}\u0001`;
  }
  static readonly marker = new RegExp(`"${JSON.stringify(Splice.nonce).slice(1, -1).replace(/\\/g, '\\\\')}(\\d+)\\\\u0001"`, 'g');
}

let spliced: Splice | undefined;

/** JSON.stringify, with each WrittenJson in the value written as its text. */
export function stringify(value: unknown): string {
  const outer = spliced;
  const splice = (spliced = new Splice());
  let json: string;
  try {
    json = JSON.stringify(value);
  } finally {
    spliced = outer;
  }
  return splice.texts.length ? json.replace(Splice.marker, (_, i: string) => splice.texts[Number(i)]!) : json;
}

/** A text as it stands inside a JSON string: escaped as JSON.stringify writes it, without the quotes. */
export const escapedInString = (text: string) => JSON.stringify(text).slice(1, -1);

/**
 * The text with every string that is a link on one of `bases` (the upstream's public address
 * first) made relative to {base_url}, the rest of the literal as written. Links to other hosts
 * stay as they are.
 */
export function relativeText(text: string, bases: readonly string[]): string {
  const roots = bases.map((base) => base.replace(/\/+$/, ''));
  return mapStrings(text, (value, literal) => {
    const root = roots.find((r) => value === r || value.startsWith(`${r}/`) || value.startsWith(`${r}?`) || value.startsWith(`${r}#`));
    if (root === undefined) return undefined;
    const rawRoot = escapedInString(root);
    // As written after the root, where the literal spells the root as JSON.stringify would.
    if (literal.startsWith(`"${rawRoot}`)) return `"${BASE_URL_TOKEN}${literal.slice(rawRoot.length + 1)}`;
    return JSON.stringify(BASE_URL_TOKEN + value.slice(root.length));
  });
}

/**
 * The stored text with its {base_url} links made links of the context: on a plain base (the
 * server) the token is replaced and the rest kept as written; otherwise (the static tree's files)
 * each link is routed as resolveLinks routes it.
 */
export function resolvedText(text: string, context: RenderContext): string {
  if (!text.includes(BASE_URL_TOKEN)) return text;
  if (context.base !== undefined) return text.replaceAll(`"${BASE_URL_TOKEN}`, `"${escapedInString(context.base)}`);
  return mapStrings(text, (value) => (value.startsWith(BASE_URL_TOKEN) ? JSON.stringify(resolveLinks(value, context)) : undefined));
}

const INSTANT = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?)([.,]\d+)?(Z|[+-]\d{2}(?::?\d{2})?)$/;

/**
 * The record's instants under `keys` shown in the context's time zone, in the form its upstream
 * wrote them: seconds and fractional digits as written; the offset as the upstream writes it in a
 * zone, where a pull learned that (the context's zoneOffsets), else in the form of the offset
 * written (±HHMM for ±HHMM, Z at zero for Z, else ±HH:MM). The rest of the text is as written.
 */
export function inTimeZone(text: string, keys: ReadonlySet<string>, context: RenderContext): string {
  let out = '';
  let from = 0;
  for (const [key, [start, end]] of memberSpans(text, 0)) {
    if (!keys.has(key) || text.charCodeAt(start) !== 0x22) continue;
    const written = JSON.parse(text.slice(start, end)) as string;
    const parts = INSTANT.exec(written);
    const ms = parts ? instantMs(written) : NaN;
    if (!parts || Number.isNaN(ms)) continue;
    const offset = offsetMinutes(ms, context.timeZone);
    const wall = new Date(Math.floor(ms / 1000) * 1000 + offset * 60_000).toISOString().slice(0, parts[1]!.length);
    // The offset as the upstream wrote its own: Z, ±HH:MM, ±HHMM or ±HH (where the zone's offset is whole hours).
    const zone = parts[3]!;
    const suffix = context.zoneOffsets ? zoneOffsetText(offset, context.zoneOffsets) : offsetIn(offset, offsetFormOf(zone) ?? '+hh:mm');
    out += `${text.slice(from, start)}"${wall}${parts[2] ?? ''}${suffix}"`;
    from = end;
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * How an upstream escapes strings where JSON lets it choose (see Escapes in the manifest): what
 * one answer's text shows. A `/` outside a string, or a character past ASCII, is no JSON, so
 * every one in a text is in a string.
 */
export interface EscapeEvidence {
  slashEscaped?: true;
  slashPlain?: true;
  nonAsciiEscaped?: 'lower' | 'upper';
  nonAsciiPlain?: true;
}

const NON_ASCII_ESCAPE = /\\u(00[89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3})/;

export function escapesIn(text: string, into: EscapeEvidence = {}): EscapeEvidence {
  if (text.includes('\\/')) into.slashEscaped = true;
  if (!into.slashPlain && /(^|[^\\])\//.test(text)) into.slashPlain = true;
  const escaped = !into.nonAsciiEscaped && NON_ASCII_ESCAPE.exec(text);
  if (escaped) into.nonAsciiEscaped = /[A-F]/.test(escaped[1]!) ? 'upper' : 'lower';
  if (!into.nonAsciiPlain && /[^\x00-\x7f]/.test(text)) into.nonAsciiPlain = true;
  return into;
}

/** Evidence of many answers as one. */
export const mergedEscapes = (a: EscapeEvidence, b: EscapeEvidence): EscapeEvidence => ({
  ...a,
  ...b,
  ...(a.nonAsciiEscaped ? { nonAsciiEscaped: a.nonAsciiEscaped } : {}),
});

/**
 * What the evidence shows the upstream always does: escapes it never left out; where the texts
 * showed nothing either way (no `/`, nothing past ASCII), what an earlier pull learned.
 */
export function escapesOf(evidence: EscapeEvidence, earlier?: { readonly escapes?: Escapes }): Escapes {
  const slash = evidence.slashEscaped || evidence.slashPlain ? evidence.slashEscaped && !evidence.slashPlain : earlier?.escapes?.slash;
  const nonAscii =
    evidence.nonAsciiEscaped || evidence.nonAsciiPlain ? (!evidence.nonAsciiPlain ? evidence.nonAsciiEscaped : undefined) : earlier?.escapes?.nonAscii;
  return { ...(slash ? { slash: true as const } : {}), ...(nonAscii ? { nonAscii } : {}) };
}

/** The escapes an upstream writes that JSON.stringify does not: `\/` for every `/`, `\uXXXX` for every character past ASCII. */
export interface Escapes {
  readonly slash?: true;
  readonly nonAscii?: 'lower' | 'upper';
}

/** A JSON text (as JSON.stringify writes strings) with the upstream's escapes. */
export function withEscapes(text: string, escapes: Escapes | undefined): string {
  if (!escapes) return text;
  // Escapes first, so that a `\/` already written is left as it is.
  let out = escapes.slash ? text.replace(/\\.|\//g, (match) => (match === '/' ? '\\/' : match)) : text;
  if (escapes.nonAscii) {
    const hex = (c: number) => c.toString(16).padStart(4, '0');
    out = out.replace(/[^\x00-\x7f]/g, (c) => `\\u${escapes.nonAscii === 'upper' ? hex(c.charCodeAt(0)).toUpperCase() : hex(c.charCodeAt(0))}`);
  }
  return out;
}

/** A value rendered from a row as the value it stands for: a WrittenJson parsed, anything else as it is. */
export const valueOf = (rendered: unknown): unknown => (rendered instanceof WrittenJson ? JSON.parse(rendered.text) : rendered);

const keysOf = (schema: z.ZodType): string[] => (schema instanceof z.ZodObject ? Object.keys(schema.shape) : []);

/** The keys of a resource's instants, those inTimeZone moves into a request's zone. */
export const instantKeys = (schema: z.ZodType): ReadonlySet<string> =>
  new Set(
    schema instanceof z.ZodObject
      ? Object.entries(schema.shape as Record<string, z.ZodType>)
          .filter(([, field]) => isInstant(field))
          .map(([key]) => key)
      : [],
  );

/** Whether a field is an instant (see field.ts `instant`), null or absent allowed. */
function isInstant(schema: z.ZodType): boolean {
  let inner: z.ZodType = schema;
  while (inner instanceof z.ZodNullable || inner instanceof z.ZodOptional) inner = inner.unwrap() as z.ZodType;
  return (inner.meta() as { format?: string } | undefined)?.format === 'date-time';
}

/**
 * How a resource is answered from a stored text (see WrittenJson): `stored` is the schema of the
 * form the text was written in (a property with its parcels), `schema` the form answered (the
 * property list's entry, without them), whose text leaves out the stored form's own fields.
 * Instants the spec shows "in the requested timezone" (the schema's instant fields) are shown in
 * the context's zone; links are the context's.
 */
export function asWritten(schema: z.ZodType, stored: z.ZodType): (text: string, context: RenderContext) => WrittenJson {
  const own = new Set(keysOf(schema));
  const dropped = new Set(keysOf(stored).filter((key) => !own.has(key)));
  const instants = instantKeys(schema);
  return (text, context) => {
    let shown = dropped.size ? withoutMembers(text, dropped) : text;
    if (instants.size && context.timeZone !== 'UTC') shown = inTimeZone(shown, instants, context);
    return new WrittenJson(resolvedText(shown, context));
  };
}
