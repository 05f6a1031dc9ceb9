/**
 * JSON read as text, without parsing it into values: where each element of an array is, where an
 * object's member is, and the text with its whitespace between tokens left out. A mirror keeps
 * the upstream's records as it wrote them (key order, number text, string escapes), which
 * JSON.parse would lose; these find and cut them in the answer's text. The text is taken to be
 * valid JSON (it parsed already): nothing here validates it.
 */

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

export function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** The index just past the string whose opening quote is at `i`. */
export function skipString(text: string, i: number): number {
  for (i++; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c /* \ */) i++;
    else if (c === 0x22 /* " */) return i + 1;
  }
  return i;
}

/** The index just past the value that starts at `i` (no whitespace before it). */
export function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x22) return skipString(text, i);
  if (c !== 0x5b /* [ */ && c !== 0x7b /* { */) {
    // A number, true, false or null: up to the next delimiter.
    while (i < text.length) {
      const d = text.charCodeAt(i);
      if (d === 0x2c || d === 0x5d || d === 0x7d || isSpace(d)) break;
      i++;
    }
    return i;
  }
  let depth = 0;
  for (; i < text.length; i++) {
    const d = text.charCodeAt(i);
    if (d === 0x22) i = skipString(text, i) - 1;
    else if (d === 0x5b || d === 0x7b) depth++;
    else if ((d === 0x5d || d === 0x7d) && --depth === 0) return i + 1;
  }
  return i;
}

/** A value's place in a text: [start, end). */
export type Span = readonly [number, number];

/** The spans of the elements of the array at `start`; none if no array is there. */
export function elementSpans(text: string, start: number): Span[] {
  const spans: Span[] = [];
  let i = skipSpace(text, start);
  if (text.charCodeAt(i) !== 0x5b) return spans;
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === 0x5d) return spans;
  for (;;) {
    const end = skipValue(text, i);
    spans.push([i, end]);
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== 0x2c) return spans;
    i = skipSpace(text, i + 1);
  }
}

/** Each member of the object at `start`: its key (decoded) and its value's span, in the order written. */
export function memberSpans(text: string, start: number): [string, Span][] {
  const members: [string, Span][] = [];
  let i = skipSpace(text, start);
  if (text.charCodeAt(i) !== 0x7b) return members;
  i = skipSpace(text, i + 1);
  while (text.charCodeAt(i) === 0x22) {
    const keyEnd = skipString(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    const valueStart = skipSpace(text, skipSpace(text, keyEnd) + 1);
    const valueEnd = skipValue(text, valueStart);
    members.push([key, [valueStart, valueEnd]]);
    i = skipSpace(text, valueEnd);
    if (text.charCodeAt(i) !== 0x2c) break;
    i = skipSpace(text, i + 1);
  }
  return members;
}

/** The span of an object member's value (the last of that key, as JSON.parse takes it). */
export function memberSpan(text: string, start: number, key: string): Span | undefined {
  let found: Span | undefined;
  for (const [name, span] of memberSpans(text, start)) if (name === key) found = span;
  return found;
}

/** The text without whitespace between tokens; strings, numbers and key order as they are. */
export function minify(text: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = skipString(text, i) - 1;
    else if (isSpace(c)) {
      out += text.slice(from, i);
      from = i + 1;
    }
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * The object's text with only the elements `keep` chooses of its array under `key`, the rest as
 * written (a page stored without the records an earlier page had).
 */
export function withElements(text: string, key: string, keep: (index: number) => boolean): string {
  const member = memberSpans(text, 0).find(([name]) => name === key);
  if (!member) return text;
  const [start, end] = member[1];
  const kept = elementSpans(text, start)
    .filter((_, i) => keep(i))
    .map(([from, to]) => text.slice(from, to));
  return `${text.slice(0, start)}[${kept.join(',')}]${text.slice(end)}`;
}

/** The object's text without the members named, the rest as written. */
export function withoutMembers(text: string, keys: ReadonlySet<string>): string {
  const members = memberSpans(text, 0);
  if (!members.some(([key]) => keys.has(key))) return text;
  const kept = members.filter(([key]) => !keys.has(key));
  // Each kept member from its key's opening quote: the key's text is just before its value.
  return `{${kept.map(([, [start, end]]) => text.slice(keyStartBefore(text, start), end)).join(',')}}`;
}

/** Where the key of the member whose value starts at `valueStart` begins. */
function keyStartBefore(text: string, valueStart: number): number {
  let i = valueStart - 1;
  while (text.charCodeAt(i) !== 0x3a /* : */) i--;
  i--;
  while (isSpace(text.charCodeAt(i))) i--;
  // i is at the key's closing quote: back to its opening one, past escaped quotes.
  for (i--; i > 0; i--) {
    if (text.charCodeAt(i) !== 0x22) continue;
    let backslashes = 0;
    while (text.charCodeAt(i - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return i;
  }
  return i;
}

/**
 * The text with each string literal passed through `change` (given the decoded string and its
 * literal as written; undefined keeps it). Keys are strings too: `change` is asked about them.
 */
export function mapStrings(text: string, change: (value: string, literal: string) => string | undefined): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) !== 0x22) continue;
    const end = skipString(text, i);
    const literal = text.slice(i, end);
    const value = literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1);
    const changed = change(value, literal);
    if (changed !== undefined) {
      out += text.slice(from, i) + changed;
      from = end;
    }
    i = end - 1;
  }
  return from === 0 ? text : out + text.slice(from);
}
