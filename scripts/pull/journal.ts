import { closeSync, createReadStream, ftruncateSync, fstatSync, openSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { readAt, writeAt } from '../../core/file-bytes.ts';
import { headOf, keyOf, packed, parseLine, plainLengthOf, RawJson, type Entry } from './journal-line.ts';
import { sizeText } from './limits.ts';

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

/** The most its answers may take as plain text, and how a failure names that limit (the option, or where it came from). */
export interface PlainLimit {
  readonly bytes: number;
  readonly name: string;
}

/** The journal would grow past its limit: the pull stops. */
export class JournalFull extends Error {}

/**
 * Where each unit's line is in the file, by key. Kept small, since a region's pull journals a
 * million units: a slot number per key, offsets and lengths in typed arrays, and a unit's meta read
 * back from its line when asked for rather than held.
 */
class Places {
  private readonly slots = new Map<string, number>();
  private offsets = new Float64Array(1024);
  private lengths = new Float64Array(1024);

  get size(): number {
    return this.slots.size;
  }

  has(key: string): boolean {
    return this.slots.has(key);
  }

  get(key: string): { offset: number; length: number } | undefined {
    const slot = this.slots.get(key);
    return slot === undefined ? undefined : { offset: this.offsets[slot]!, length: this.lengths[slot]! };
  }

  /** Whether the line at `offset` is the one that counts for its key (of a unit written twice, the later). */
  counts(key: string | undefined, offset: number): boolean {
    if (key === undefined) return false;
    const slot = this.slots.get(key);
    return slot !== undefined && this.offsets[slot] === offset;
  }

  set(key: string, offset: number, length: number): void {
    let slot = this.slots.get(key);
    if (slot === undefined) {
      slot = this.slots.size;
      if (slot === this.offsets.length) {
        this.offsets = grown(this.offsets);
        this.lengths = grown(this.lengths);
      }
      this.slots.set(key, slot);
    }
    this.offsets[slot] = offset;
    this.lengths[slot] = length;
  }

  /** Every unit's place, in the order first written. */
  *all(): Generator<{ offset: number; length: number }> {
    for (let slot = 0; slot < this.slots.size; slot++) yield { offset: this.offsets[slot]!, length: this.lengths[slot]! };
  }
}

const grown = (array: Float64Array) => {
  const larger = new Float64Array(array.length * 2);
  larger.set(array);
  return larger;
};

export class Journal {
  private readonly places = new Places();
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
        journal.places.set(head.key, offset, length);
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

  /** A unit's meta, read back from its line. */
  meta<M>(key: string): M | undefined {
    const place = this.places.get(key);
    return place && (this.headAt(place.offset, place.length).meta as M);
  }

  /** Every unit's meta, read back from the file in the order the units were first written. */
  *metas(): Generator<unknown> {
    for (const place of this.places.all()) yield this.headAt(place.offset, place.length).meta;
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
    writeAt(this.fd, line, this.size);
    this.places.set(key, this.size, line.length);
    this.size += line.length;
    this.plainSize += plainLength;
  }

  /** One unit's whole entry, read back from the file. */
  read<M>(key: string): Entry<M> | undefined {
    const place = this.places.get(key);
    if (!place) return undefined;
    return parseLine(this.text(place.offset, place.length - 1)).entry as Entry<M>;
  }

  /** The key and meta of the line at `offset`, reading no more of it than they take. */
  private headAt(offset: number, length: number): { key: string; meta: unknown } {
    let text = this.text(offset, Math.min(length - 1, HEAD_BYTES));
    let second = text.indexOf('\t', text.indexOf('\t') + 1);
    if (second === -1) {
      text = this.text(offset, length - 1);
      second = text.indexOf('\t', text.indexOf('\t') + 1);
    }
    const first = text.indexOf('\t');
    return { key: JSON.parse(text.slice(0, first)) as string, meta: JSON.parse(text.slice(first + 1, second)) };
  }

  /** `length` bytes of the file from `offset`, as text. */
  private text(offset: number, length: number): string {
    const buffer = Buffer.allocUnsafe(length);
    readAt(this.fd, buffer, length, offset, this.path);
    return buffer.toString('utf8');
  }

  /**
   * Every entry in the order written, with the length of its line as plain text (what its answers
   * take once read, whatever it takes on disk); of a unit written twice (see open), the line that counts.
   */
  async *entries(): AsyncGenerator<Entry & { readonly bytes: number }> {
    const input = createReadStream(this.path, { encoding: 'utf8', end: Math.max(0, this.size - 1) });
    let offset = 0;
    for await (const line of createInterface({ input, crlfDelay: Infinity })) {
      const at = offset;
      offset += Buffer.byteLength(line) + 1;
      if (!line || !this.places.counts(keyOf(line), at)) continue;
      const { entry, plainBytes } = parseLine(line);
      yield { ...entry, bytes: plainBytes + 1 };
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}

const defaultMaxDepth = 64;

/** Bytes read for a line's key and meta at first: most heads take far fewer; a longer one is read whole. */
const HEAD_BYTES = 4096;
