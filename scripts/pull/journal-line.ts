import { closeSync, createReadStream, fstatSync, openSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import { elementSpans, memberSpan, minify } from '../../datasets/vocabulary/json-text.ts';
import type { RecordPlace } from '../../datasets/answers/crawling.ts';
import { nestingPast } from './upstream/nesting.ts';

/**
 * How a journal line is written and read back: `key TAB meta TAB payload`, the payload packed
 * (see journal.ts).
 */

/** A record that failed validation, kept as it came with the reason. */
export interface Quarantined {
  readonly resource: string;
  readonly url: string;
  readonly reason: string;
  readonly record: unknown;
}

/** Where the records of one resource are in a stored answer, and the request that brought them. */
export interface Batch extends RecordPlace {
  /** Which of the unit's answers. */
  readonly answer: number;
  /** Path and query parameters of the request, e.g. { counterId: 'x', from: …, to: … }. */
  readonly params: Readonly<Record<string, string>>;
  /** The request's endpoint path relative to the data set. */
  readonly path: string;
  readonly url: string;
  /** Epoch ms of the answer: the capture time of live data. */
  readonly fetchedAt: number;
  /**
   * Epoch ms the request for the answer was sent (its last attempt, on the clock of fetchedAt):
   * live data shows the upstream at some moment from askedAt to fetchedAt. Optional when read:
   * journals and live archives written before it was recorded have none.
   */
  readonly askedAt?: number;
}

/** An answer kept as the JSON text the upstream sent, written into the journal as it is. */
export class RawJson {
  constructor(readonly json: string) {}

  /** The text for a journal line, which may hold no line break (JSON allows them between tokens, which go; the rest stays as written). */
  get line(): string {
    return /[\r\n]/.test(this.json) ? minify(this.json) : this.json;
  }
}

export interface Payload {
  readonly dataset?: string;
  readonly batches?: readonly Batch[];
  /** The unit's answers; a batch points into one of them. */
  readonly answers?: readonly unknown[];
  /** The same answers as the JSON text they came in (read back from the journal). */
  readonly texts?: readonly string[];
}

export interface Entry<M = unknown> extends Payload {
  readonly key: string;
  readonly meta: M;
}

/** A line's key, or none when it cannot be read (a line open passed over). */
export function keyOf(line: string): string | undefined {
  try {
    return JSON.parse(line.slice(0, line.indexOf('\t'))) as string;
  } catch {
    return undefined;
  }
}

/** A whole line's key and meta, or why it cannot be read back. */
export function headOf(line: string, maxDepth: number): { key: string; meta: unknown } | { unreadable: string } {
  // The payload's own nesting, and the few levels the line wraps it in (entry, answers). A packed
  // payload is not inflated to check it: only this odsnap or a later one packs, and they journal
  // only answers that passed the same limit when fetched (upstream/attempt.ts); the lines nested
  // too deep are plain ones from an odsnap that had no limit, which this still catches.
  if (nestingPast(line, maxDepth + 4) !== undefined) return { unreadable: `nested deeper than ${maxDepth} levels` };
  // Lines are written whole from JSON.stringify or from answers that parsed: only the head is read now.
  try {
    const [key, meta] = line.split('\t', 2);
    return { key: JSON.parse(key!) as string, meta: JSON.parse(meta!) };
  } catch (error) {
    return { unreadable: (error as Error).message };
  }
}

/**
 * Marks a packed payload: a payload written plain (by an odsnap before packing) is a JSON object,
 * and no JSON text starts with `~`, so both forms read.
 */
const PACKED = '~';

/**
 * A payload as a packed line holds it: its length in bytes and a colon (which base64 never holds),
 * then the payload deflated at a fast level (a pull writes a line per unit) in base64, which holds
 * no line break.
 */
export function packed(payload: string, bytes: number): string {
  return `${PACKED}${bytes}:${deflateRawSync(payload, { level: constants.Z_BEST_SPEED }).toString('base64')}`;
}

/** The mark and the length a packed payload says, when it says one. */
const packedHead = new RegExp(`^${PACKED}(\\d+):`);

/** A packed payload's deflated bytes: after its length, or, written by an odsnap that did not say the length, right after the mark. */
const deflatedOf = (stored: string) => Buffer.from(stored.slice(packedHead.exec(stored)?.[0].length ?? PACKED.length), 'base64');

/**
 * A whole line's length as plain text, from the length its packed payload says; a plain payload,
 * or a packed one from an odsnap that did not say it, counts as long as it is on disk.
 */
export function plainLengthOf(line: string, length: number): number {
  const second = line.indexOf('\t', line.indexOf('\t') + 1);
  const said = packedHead.exec(line.slice(second + 1, second + 24));
  return said ? Buffer.byteLength(line.slice(0, second + 1)) + Number(said[1]) + 1 : length;
}

/** A line's entry, its answers' texts as written, and the line's length in bytes as plain text. */
export function parseLine(line: string): { entry: Entry; plainBytes: number } {
  const first = line.indexOf('\t');
  const second = line.indexOf('\t', first + 1);
  const stored = line.slice(second + 1);
  const inflated = stored.startsWith(PACKED) ? inflateRawSync(deflatedOf(stored)) : undefined;
  const payload = inflated ? inflated.toString('utf8') : stored;
  const answers = memberSpan(payload, 0, 'answers');
  const texts = answers ? elementSpans(payload, answers[0]).map(([start, end]) => payload.slice(start, end)) : [];
  const entry = { key: JSON.parse(line.slice(0, first)), meta: JSON.parse(line.slice(first + 1, second)), ...JSON.parse(payload), texts };
  return { entry, plainBytes: Buffer.byteLength(line.slice(0, second + 1)) + (inflated?.length ?? Buffer.byteLength(stored)) };
}

/**
 * Every whole entry of a journal that another process may be appending to (a live archive's hour
 * while the mirror captures), in the order written: read only, so a torn last line is passed
 * over, not cut off as `Journal.open` would.
 */
export async function* entriesOf(path: string): AsyncGenerator<Entry> {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    let offset = 0;
    for await (const line of createInterface({ input: createReadStream(path, { encoding: 'utf8', end: Math.max(0, size - 1) }), crlfDelay: Infinity })) {
      offset += Buffer.byteLength(line) + 1;
      if (offset > size) break;
      if (line) yield parseLine(line).entry;
    }
  } finally {
    closeSync(fd);
  }
}
