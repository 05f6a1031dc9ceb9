import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { readAt, TextAppender, writeAt } from '../core/file-bytes.ts';

/**
 * A series endpoint's rows kept rendered (a counter's readings, a station's history of a sensor),
 * in the order of their series and time, so that a request's rows are one run of bytes found by
 * the times around it, with no statement: a month of a counter's readings read through DuckDB took
 * the server most of a millisecond of decoding, rendering and serializing, and the Parquet files'
 * decompression as much again.
 *
 * Three files per endpoint:
 * - `<name>.bodies`: each row's text followed by a comma, rows in order;
 * - `<name>.rows`: per row, where its text starts and its time (microseconds), as two 64-bit
 *   floats, then where the last text ends;
 * - `<name>.series`: JSON, each series' key with its first row and its count.
 * Only the series keys are held in memory; a request reads the times it searches, the rows'
 * places and their texts with positioned reads, which the page cache makes copies.
 */

const FORMAT = 1;
/** A row's place and time: two 64-bit floats. */
const ENTRY = 16;

interface SeriesIndex {
  readonly format: number;
  readonly rows: number;
  /** What the writer of the texts says of them (see series-files.ts). */
  readonly about: Readonly<Record<string, string>>;
  /** Each series: its key, first row, count, and 1 if a row of it was marked as written. */
  readonly series: readonly (readonly [key: string, first: number, count: number, written: 0 | 1])[];
}

/** The key of a series in its files: the values naming it, as text. */
export const seriesKey = (values: readonly unknown[]) => JSON.stringify(values.map(String));

/** Writes an endpoint's series files, a row at a time, in order of series and time. */
export class SeriesFileWriter {
  private readonly bodiesFd: number;
  private readonly bodies: TextAppender;
  private readonly rows: number;
  private count = 0;
  private readonly series: [key: string, first: number, count: number, written: 0 | 1][] = [];
  private readonly seen = new Set<string>();
  private lastTime = -Infinity;
  /** Rows' entries waiting to be written, a mebibyte at a time. */
  private readonly entries = new Float64Array(1 << 16);
  private entriesHeld = 0;
  private entriesWritten = 0;

  constructor(private readonly path: string) {
    this.bodiesFd = openSync(`${path}.bodies`, 'w');
    this.bodies = new TextAppender(this.bodiesFd);
    this.rows = openSync(`${path}.rows`, 'w');
  }

  /**
   * Adds a row: its series' rows come one after another, each no earlier than the one before.
   * `written`: a row its upstream wrote, which answers handle apart (see series-files.ts).
   */
  add(key: string, timeMicros: number, text: string, written = false): void {
    let current = this.series.at(-1);
    if (current?.[0] === key) {
      if (timeMicros < this.lastTime) throw new Error(`${this.path}: series ${key} has a row at ${timeMicros} after one at ${this.lastTime}`);
      current[2]++;
    } else {
      if (this.seen.has(key)) throw new Error(`${this.path}: series ${key} came twice`);
      this.seen.add(key);
      this.series.push((current = [key, this.count, 1, 0]));
    }
    if (written) current[3] = 1;
    this.lastTime = timeMicros;
    this.entry(this.bodies.size, timeMicros);
    this.bodies.append(`${text},`);
    this.count++;
  }

  finish(about: Readonly<Record<string, string>> = {}): void {
    this.bodies.flush();
    this.entry(this.bodies.size, Number.NaN);
    this.flushEntries();
    closeSync(this.bodiesFd);
    closeSync(this.rows);
    writeFileSync(`${this.path}.series`, JSON.stringify({ format: FORMAT, rows: this.count, about, series: this.series } satisfies SeriesIndex));
  }

  private entry(offset: number, time: number): void {
    if (this.entriesHeld === this.entries.length) this.flushEntries();
    this.entries[this.entriesHeld++] = offset;
    this.entries[this.entriesHeld++] = time;
  }

  private flushEntries(): void {
    const bytes = new Uint8Array(this.entries.buffer, 0, this.entriesHeld * 8);
    writeAt(this.rows, bytes, this.entriesWritten);
    this.entriesWritten += bytes.length;
    this.entriesHeld = 0;
  }
}

/** The rows of one series in a span of time: their texts, each followed by a comma, and where each starts. */
export interface SeriesRun {
  readonly count: number;
  /** How many rows the span holds, those skipped and those past `take` included. */
  readonly total: number;
  readonly bytes: Buffer;
  /** Where each row's text starts in `bytes`, and where the last ends (one more than `count`). */
  readonly starts: Float64Array;
  /** Whether a row of the series was marked as written. */
  readonly written: boolean;
}

/** An endpoint's series files opened for requests; `close` when the snapshot closes. */
export class SeriesFile {
  private readonly entry = new Float64Array(2);
  private readonly entryBytes = new Uint8Array(this.entry.buffer);

  private constructor(
    private readonly path: string,
    private readonly bodies: number,
    private readonly rows: number,
    private readonly series: ReadonlyMap<string, readonly [first: number, count: number, written: boolean]>,
    /** What the writer of the texts said of them. */
    readonly about: Readonly<Record<string, string>>,
  ) {}

  static open(path: string): SeriesFile {
    const index = JSON.parse(readFileSync(`${path}.series`, 'utf8')) as SeriesIndex;
    if (index.format !== FORMAT) throw new Error(`${path}.series: format ${index.format}, not ${FORMAT}`);
    const series = new Map(index.series.map(([key, first, count, written]) => [key, [first, count, written === 1] as const]));
    const bodies = openSync(`${path}.bodies`, 'r');
    try {
      return new SeriesFile(path, bodies, openSync(`${path}.rows`, 'r'), series, index.about);
    } catch (error) {
      closeSync(bodies);
      throw error;
    }
  }

  /**
   * The rows of a series whose time is from `from` up to `to` (microseconds), `to` included when
   * `toIncluded`, oldest first, the first `skip` left out and at most `take`; none for a series it
   * does not hold.
   */
  run(key: string, from: number, to: number, toIncluded: boolean, { skip = 0, take = Number.POSITIVE_INFINITY } = {}): SeriesRun {
    const found = this.series.get(key);
    if (!found) return { count: 0, total: 0, bytes: Buffer.alloc(0), starts: new Float64Array(1), written: false };
    const [first, count, written] = found;
    const spanStart = this.firstRow(first, first + count, (time) => time >= from);
    const spanEnd = this.firstRow(spanStart, first + count, toIncluded ? (time) => time > to : (time) => time >= to);
    const start = Math.min(spanStart + skip, spanEnd);
    const end = Math.min(start + take, spanEnd);
    const starts = new Float64Array(2 * (end - start + 1));
    readAt(this.rows, new Uint8Array(starts.buffer), starts.byteLength, start * ENTRY, `${this.path}.rows`);
    const places = new Float64Array(end - start + 1);
    for (let i = 0; i < places.length; i++) places[i] = starts[2 * i]! - starts[0]!;
    const bytes = Buffer.allocUnsafe(places[places.length - 1]!);
    readAt(this.bodies, bytes, bytes.length, starts[0]!, `${this.path}.bodies`);
    return { count: end - start, total: spanEnd - spanStart, bytes, starts: places, written };
  }

  close(): void {
    closeSync(this.bodies);
    closeSync(this.rows);
  }

  /** The first row from `low` before `high` whose time passes `test` (times grow along the rows), else `high`. */
  private firstRow(low: number, high: number, test: (time: number) => boolean): number {
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (test(this.timeOf(middle))) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  private timeOf(row: number): number {
    readAt(this.rows, this.entryBytes, ENTRY, row * ENTRY, `${this.path}.rows`);
    return this.entry[1]!;
  }
}
