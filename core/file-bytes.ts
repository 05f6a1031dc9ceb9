import { readSync, writeSync } from 'node:fs';

/**
 * Bytes at a place in a file, read or written whole: `readSync` and `writeSync` may do less than
 * they are asked, so each call goes on until all of it is done.
 */

/** Reads `length` bytes at `position` of a file into `into` (from its start); `name` says which file when it ends first. */
export function readAt(fd: number, into: Uint8Array, length: number, position: number, name: string): void {
  for (let read = 0; read < length; ) {
    const n = readSync(fd, into, read, length - read, position + read);
    if (n === 0) throw new Error(`${name} ends at byte ${position + read}, before the ${length} bytes read at ${position}`);
    read += n;
  }
}

/** Writes all of `data` at `position`, or where the file stands when none is given. */
export function writeAt(fd: number, data: Uint8Array, position?: number): void {
  for (let written = 0; written < data.length; )
    written += writeSync(fd, data, written, data.length - written, position === undefined ? null : position + written);
}

/**
 * Texts appended to a file as UTF-8, encoded straight into a buffer that is written when full: a
 * write per text costs a system call per row, for millions of rows.
 */
export class TextAppender {
  private readonly pending = Buffer.allocUnsafe(1 << 20);
  private pendingBytes = 0;
  private flushed = 0;

  constructor(private readonly fd: number) {}

  /** The bytes appended so far. */
  get size(): number {
    return this.flushed + this.pendingBytes;
  }

  /** Appends a text; returns its length in bytes. */
  append(text: string): number {
    // A UTF-16 unit takes at most three bytes in UTF-8.
    if (this.pendingBytes + text.length * 3 > this.pending.length) this.flush();
    if (text.length * 3 <= this.pending.length) {
      const bytes = this.pending.write(text, this.pendingBytes);
      this.pendingBytes += bytes;
      return bytes;
    }
    const bytes = Buffer.from(text);
    writeAt(this.fd, bytes, this.flushed);
    this.flushed += bytes.length;
    return bytes.length;
  }

  /** Writes what is held: call it before the file is closed. */
  flush(): void {
    writeAt(this.fd, this.pending.subarray(0, this.pendingBytes), this.flushed);
    this.flushed += this.pendingBytes;
    this.pendingBytes = 0;
  }
}
