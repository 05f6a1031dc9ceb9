import { closeSync, createReadStream, ftruncateSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import type { RecordPlace } from '../../datasets/answers/crawling.ts';
import { elementSpans, memberSpan, minify } from '../../datasets/vocabulary/json-text.ts';
import { sizeText } from './limits.ts';
import { nestingPast } from './upstream/nesting.ts';

/**
 * The checkpoint of a pull: an append-only file with one line per finished unit of work (a
 * page, a window, a detail), holding the upstream's answers as they came and where in them the
 * records of each resource are (normalized into rows only when the snapshot is built, see
 * normalize.ts). A unit's line is written in one write
 * once the unit is complete, so a pull killed at any moment leaves whole lines and at most one
 * torn last line, which opening cuts off. A resumed pull skips every unit already in the journal;
 * the snapshot is built from the lines alone.
 *
 * A line is `key TAB meta TAB payload`, each JSON (which never holds a raw tab), so that opening
 * a journal reads keys and metas without parsing the rows. The payload is kept deflated, in base64
 * after a `~` (see packed): the upstream's answers are repetitive JSON, and a region's pull would
 * otherwise outgrow the journal's default limit. Key and meta stay plain, so opening never inflates.
 *
 * It grows to `maxBytes` at most, counted on disk, and its answers to `maxPlain` at most,
 * counted as read: a unit that would take it past either is not written, and every later append
 * fails the same way (`full`), so an upstream that answers without end cannot fill the disk, with
 * the journal or, through answers that pack small, with the rows the snapshot stages from them.
 * A packed payload says its plain length (`~LENGTH:`), so opening counts it without inflating.
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

/** The most its answers may take as plain text, and how a failure names that limit (the option, or where it came from). */
export interface PlainLimit {
  readonly bytes: number;
  readonly name: string;
}

/** The journal would grow past its limit: the pull stops. */
export class JournalFull extends Error {}

interface Place {
  readonly meta: unknown;
  readonly offset: number;
  readonly length: number;
}

export class Journal {
  private readonly places = new Map<string, Place>();
  private size = 0;
  /** Bytes of the lines as plain text, as staging reads them. */
  private plainSize = 0;
  /** Set once a unit did not fit under maxBytes or maxPlain. */
  full: JournalFull | undefined;

  private constructor(
    readonly path: string,
    private readonly fd: number,
    private readonly maxBytes: number,
    private readonly maxPlain: PlainLimit,
  ) {}

  /**
   * Opens (or creates) a journal, indexing its lines and cutting off a torn last one. A whole line
   * that cannot be read back (not JSON, or nested past what the pull reads: written by an older
   * odsnap) is passed over, so its unit is fetched again and its new line counts instead.
   */
  static async open(
    path: string,
    options: { maxDepth?: number; maxBytes?: number; maxPlain?: PlainLimit; onUnreadable?: (offset: number, reason: string) => void } = {},
  ): Promise<Journal> {
    const journal = new Journal(path, openSync(path, 'a+'), options.maxBytes ?? Infinity, options.maxPlain ?? { bytes: Infinity, name: '--max-answers' });
    let offset = 0;
    const input = createReadStream(path, { encoding: 'utf8' });
    const fileSize = fstatSync(journal.fd).size;
    const maxDepth = options.maxDepth ?? defaultMaxDepth;
    for await (const line of createInterface({ input, crlfDelay: Infinity })) {
      const length = Buffer.byteLength(line) + 1;
      if (offset + length > fileSize) break; // the last line has no newline: torn
      const head = headOf(line, maxDepth);
      if ('unreadable' in head) options.onUnreadable?.(offset, head.unreadable);
      else {
        journal.places.set(head.key, { meta: head.meta, offset, length });
        journal.plainSize += plainLengthOf(line, length);
      }
      offset += length;
    }
    if (offset < fileSize) ftruncateSync(journal.fd, offset);
    journal.size = offset;
    return journal;
  }

  get units(): number {
    return this.places.size;
  }

  has(key: string): boolean {
    return this.places.has(key);
  }

  meta<M>(key: string): M | undefined {
    return this.places.get(key)?.meta as M | undefined;
  }

  /** Every unit's meta, kept in memory. */
  *metas(): Generator<unknown> {
    for (const place of this.places.values()) yield place.meta;
  }

  /** Appends a finished unit in one write; answers given as RawJson go in as the text they are. */
  append<M>(entry: Omit<Entry<M>, 'answers'> & { answers?: readonly (RawJson | unknown)[] }): void {
    const { key, meta, answers = [], ...payload } = entry;
    const texts = answers.map((answer) => (answer instanceof RawJson ? answer.line : JSON.stringify(answer)));
    const head = JSON.stringify(payload).slice(0, -1);
    const body = `${head}${head.length > 1 ? ',' : ''}"answers":[${texts.join(',')}]}`;
    const lineHead = `${JSON.stringify(key)}\t${JSON.stringify(meta ?? null)}\t`;
    const bodyBytes = Buffer.byteLength(body);
    const line = Buffer.from(`${lineHead}${packed(body, bodyBytes)}\n`);
    const plainLength = Buffer.byteLength(lineHead) + bodyBytes + 1;
    if (this.full) throw this.full;
    if (this.size + line.length > this.maxBytes) {
      this.full = new JournalFull(
        `the journal would grow past ${sizeText(this.maxBytes)} (--max-journal) with ${key}, after ${this.places.size} units; the pull stopped`,
      );
      throw this.full;
    }
    if (this.plainSize + plainLength > this.maxPlain.bytes) {
      this.full = new JournalFull(
        `the upstream's answers would take more than ${sizeText(this.maxPlain.bytes)} once read (${this.maxPlain.name}) with ${key}, after ${this.places.size} units; the pull stopped`,
      );
      throw this.full;
    }
    for (let written = 0; written < line.length; ) written += writeSync(this.fd, line, written, line.length - written, this.size + written);
    this.places.set(key, { meta, offset: this.size, length: line.length });
    this.size += line.length;
    this.plainSize += plainLength;
  }

  /** One unit's whole entry, read back from the file. */
  read<M>(key: string): Entry<M> | undefined {
    const place = this.places.get(key);
    if (!place) return undefined;
    const buffer = Buffer.alloc(place.length);
    readSync(this.fd, buffer, 0, place.length, place.offset);
    return parseLine(buffer.toString('utf8', 0, place.length - 1)).entry as Entry<M>;
  }

  /**
   * Every entry in the order written, with the length of its line as plain text (what its answers
   * take once read, whatever it takes on disk); of a unit written twice (see open), the line that counts.
   */
  async *entries(): AsyncGenerator<Entry & { readonly bytes: number }> {
    const counted = new Set([...this.places.values()].map((place) => place.offset));
    const input = createReadStream(this.path, { encoding: 'utf8', end: Math.max(0, this.size - 1) });
    let offset = 0;
    for await (const line of createInterface({ input, crlfDelay: Infinity })) {
      const at = offset;
      offset += Buffer.byteLength(line) + 1;
      if (!line || !counted.has(at)) continue;
      const { entry, plainBytes } = parseLine(line);
      yield { ...entry, bytes: plainBytes + 1 };
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}

const defaultMaxDepth = 64;

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

/** A whole line's key and meta, or why it cannot be read back. */
function headOf(line: string, maxDepth: number): { key: string; meta: unknown } | { unreadable: string } {
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
function packed(payload: string, bytes: number): string {
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
function plainLengthOf(line: string, length: number): number {
  const second = line.indexOf('\t', line.indexOf('\t') + 1);
  const said = packedHead.exec(line.slice(second + 1, second + 24));
  return said ? Buffer.byteLength(line.slice(0, second + 1)) + Number(said[1]) + 1 : length;
}

/** A line's entry, its answers' texts as written, and the line's length in bytes as plain text. */
function parseLine(line: string): { entry: Entry; plainBytes: number } {
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
