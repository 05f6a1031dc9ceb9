import { closeSync, openSync, writeFileSync } from 'node:fs';
import { readAt, TextAppender } from '../core/file-bytes.ts';

/**
 * Rendered items in a file, found by key without a statement: a transaction, a property with its
 * details, a counter, a station. DuckDB plans and runs a statement per lookup, even by an indexed
 * key, which costs many times what the rest of the answer does; read from here, a record is a hash
 * of its key and two positioned reads (the key, to be sure, and the body), which the page cache
 * makes copies.
 *
 * Two files per resource: `<name>.bodies`, the texts one after another in row order, and
 * `<name>.index`: a JSON header (its length first, as a 32-bit little-endian number), then the
 * bodies' offsets (64-bit floats, one more than rows), then for each key column its keys' offsets
 * (32-bit, one more than rows), the keys one after another (UTF-8, a null key empty) and the row
 * numbers of its non-null keys, in row order (32-bit).
 */

const FORMAT = 2;

interface Header {
  readonly format: number;
  readonly rows: number;
  readonly columns: readonly { readonly column: string; readonly keyBytes: number; readonly keyed: number }[];
}

/** Writes a resource's record files, a row at a time in row order. */
export class RecordFileWriter {
  private readonly fd: number;
  private readonly offsets: number[] = [0];
  /** Keys as text until the end: a Buffer per key held the builder's memory to twice its size at city scale. */
  private readonly keys: (string | null)[][];
  private readonly bodies: TextAppender;

  constructor(
    private readonly path: string,
    private readonly columns: readonly string[],
  ) {
    this.fd = openSync(`${path}.bodies`, 'w');
    this.bodies = new TextAppender(this.fd);
    this.keys = columns.map(() => []);
  }

  add(text: string, keys: readonly (string | null)[]): void {
    this.offsets.push(this.offsets.at(-1)! + this.bodies.append(text));
    keys.forEach((key, i) => this.keys[i]!.push(key));
  }

  finish(): void {
    this.bodies.flush();
    closeSync(this.fd);
    const rows = this.offsets.length - 1;
    const sections: Buffer[] = [Buffer.from(new Float64Array(this.offsets).buffer)];
    const columns = this.columns.map((column, c) => {
      const keys: (Buffer | null)[] = this.keys[c]!.map((key) => (key === null ? null : Buffer.from(key)));
      const keyOffsets = new Uint32Array(rows + 1);
      for (let row = 0; row < rows; row++) keyOffsets[row + 1] = keyOffsets[row]! + (keys[row]?.length ?? 0);
      const keyed = keys.flatMap((key, row) => (key === null ? [] : [row]));
      const blob = Buffer.concat(keys.filter((key): key is Buffer => key !== null));
      sections.push(Buffer.from(keyOffsets.buffer), blob, Buffer.from(new Uint32Array(keyed).buffer));
      return { column, keyBytes: blob.length, keyed: keyed.length };
    });
    const header = Buffer.from(JSON.stringify({ format: FORMAT, rows, columns } satisfies Header));
    const length = Buffer.alloc(4);
    length.writeUInt32LE(header.length);
    writeFileSync(`${this.path}.index`, Buffer.concat([length, header, ...sections]));
  }
}

interface KeyIndex {
  /** Where each row's key starts in the index file, and ends (the next row's start). */
  readonly offsets: Uint32Array;
  /** Where the column's keys start in the index file. */
  readonly keysAt: number;
  /** Open addressing: slot by the key's hash, holding its first row + 1 (0: empty). */
  readonly slots: Uint32Array;
}

/** FNV-1a over a string's UTF-16 code units: the same for a key read from the file and one asked for. */
function hashOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** A typed array of `count` elements read at `position`. */
function arrayAt<T extends Uint32Array | Float64Array>(
  fd: number,
  Type: { new (length: number): T; readonly BYTES_PER_ELEMENT: number },
  count: number,
  position: number,
): T {
  const array = new Type(count);
  readAt(fd, new Uint8Array(array.buffer), count * Type.BYTES_PER_ELEMENT, position, 'a record file');
  return array;
}

/**
 * A resource's record files opened for lookups; `close` when the snapshot closes. In memory: the
 * bodies' offsets, and per key column the keys' offsets and a hash table of rows (a few MB a
 * snapshot). The keys stay in the index file: a lookup reads the
 * one its hash points to, to be sure (a server holds two snapshots' files around a hot swap).
 */
export class RecordFile {
  /** Where a key read for a lookup goes (longer ones get their own). */
  private readonly scratch = Buffer.allocUnsafeSlow(1024);
  /** Where `withJoined` reads rows; grown to the largest page asked for. */
  private joinedBuffer = Buffer.allocUnsafeSlow(0);

  private constructor(
    private readonly fd: number,
    private readonly indexFd: number,
    private readonly offsets: Float64Array,
    private readonly columns: ReadonlyMap<string, KeyIndex>,
  ) {}

  static open(path: string): RecordFile {
    const indexFd = openSync(`${path}.index`, 'r');
    try {
      const length = Buffer.alloc(4);
      readAt(indexFd, length, 4, 0, 'a record file');
      const headerLength = length.readUInt32LE(0);
      const headerBytes = Buffer.alloc(headerLength);
      readAt(indexFd, headerBytes, headerLength, 4, 'a record file');
      const header = JSON.parse(headerBytes.toString('utf8')) as Header;
      if (header.format !== FORMAT) throw new Error(`${path}.index: format ${header.format}, not ${FORMAT}`);
      let at = 4 + headerLength;
      const offsets = arrayAt(indexFd, Float64Array, header.rows + 1, at);
      at += 8 * (header.rows + 1);
      const columns = new Map<string, KeyIndex>();
      for (const { column, keyBytes, keyed } of header.columns) {
        const keyOffsets = arrayAt(indexFd, Uint32Array, header.rows + 1, at);
        at += 4 * (header.rows + 1);
        const keysAt = at;
        // The keys are read once, to hash them, and let go.
        const blob = Buffer.allocUnsafeSlow(keyBytes);
        readAt(indexFd, blob, keyBytes, keysAt, 'a record file');
        at += keyBytes;
        const keyedRows = arrayAt(indexFd, Uint32Array, keyed, at);
        at += 4 * keyed;
        // A hash table over the keys, at most half full: a lookup is a hash and, mostly, one comparison.
        const slots = new Uint32Array(2 ** Math.ceil(Math.log2(Math.max(2, keyed * 2))));
        const mask = slots.length - 1;
        // Rows come in row order: of equal keys, the first row's is the one kept.
        for (const row of keyedRows) {
          const key = blob.toString('utf8', keyOffsets[row]!, keyOffsets[row + 1]!);
          let slot = hashOf(key) & mask;
          let taken = false;
          while (slots[slot] !== 0) {
            const other = slots[slot]! - 1;
            if (blob.compare(blob, keyOffsets[row]!, keyOffsets[row + 1]!, keyOffsets[other]!, keyOffsets[other + 1]!) === 0) {
              taken = true;
              break;
            }
            slot = (slot + 1) & mask;
          }
          if (!taken) slots[slot] = row + 1;
        }
        columns.set(column, { offsets: keyOffsets, keysAt, slots });
      }
      return new RecordFile(openSync(`${path}.bodies`, 'r'), indexFd, offsets, columns);
    } catch (error) {
      closeSync(indexFd);
      throw error;
    }
  }

  /** Whether items are found by this column here. */
  has(column: string): boolean {
    return this.columns.has(column);
  }

  /** The bytes of the first row (in row order) whose `column` is `key`, or undefined. */
  find(column: string, key: string): Buffer | undefined {
    const index = this.columns.get(column);
    if (!index) return undefined;
    const { offsets, keysAt, slots } = index;
    const mask = slots.length - 1;
    const bytes = Buffer.byteLength(key);
    for (let slot = hashOf(key) & mask; slots[slot] !== 0; slot = (slot + 1) & mask) {
      const row = slots[slot]! - 1;
      const start = offsets[row]!;
      // A key of other length in bytes is another key; else compare the text.
      if (offsets[row + 1]! - start !== bytes) continue;
      const stored = bytes <= this.scratch.length ? this.scratch : Buffer.allocUnsafe(bytes);
      readAt(this.indexFd, stored, bytes, keysAt + start, 'a record file');
      if (stored.toString('utf8', 0, bytes) === key) return this.body(row);
    }
    return undefined;
  }

  /**
   * The rows' bytes, in the order given, joined by the byte `separator`, handed to `use` and
   * valid only while it runs: they are read into a buffer this file keeps for the next call (a
   * page's hundred-odd KB made anew per request was most of what the server's collector did).
   * One read for each run of neighbouring rows.
   */
  withJoined<T>(rows: readonly number[], separator: number, use: (bytes: Buffer) => T): T {
    let total = Math.max(0, rows.length - 1);
    for (const row of rows) total += this.offsets[row + 1]! - this.offsets[row]!;
    // A run of neighbours is read past the joined bytes, then spread out with separators between.
    let span = 0;
    for (let i = 1, first = 0; i < rows.length; i++) {
      if (rows[i] !== rows[i - 1]! + 1) first = i;
      else span = Math.max(span, this.offsets[rows[i]! + 1]! - this.offsets[rows[first]!]!);
    }
    if (this.joinedBuffer.length < total + span) this.joinedBuffer = Buffer.allocUnsafeSlow(2 ** Math.ceil(Math.log2(total + span)));
    const out = this.joinedBuffer;
    const run = out.subarray(total);
    let at = 0;
    for (let i = 0; i < rows.length; ) {
      let last = i;
      while (last + 1 < rows.length && rows[last + 1] === rows[last]! + 1) last++;
      const start = this.offsets[rows[i]!]!;
      const end = this.offsets[rows[last]! + 1]!;
      if (last === i) {
        readAt(this.fd, out.subarray(at), end - start, start, 'a record file');
        at += end - start;
      } else {
        // Read past the joined bytes, then copied into place with the separators between.
        readAt(this.fd, run, end - start, start, 'a record file');
        for (let r = i; r <= last; r++) {
          if (r > i) out[at++] = separator;
          at += run.copy(out, at, this.offsets[rows[r]!]! - start, this.offsets[rows[r]! + 1]! - start);
        }
      }
      i = last + 1;
      if (i < rows.length) out[at++] = separator;
    }
    return use(out.subarray(0, total));
  }

  private body(row: number): Buffer {
    const start = this.offsets[row]!;
    const buffer = Buffer.allocUnsafe(this.offsets[row + 1]! - start);
    readAt(this.fd, buffer, buffer.length, start, 'a record file');
    return buffer;
  }

  close(): void {
    closeSync(this.fd);
    closeSync(this.indexFd);
  }
}
