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
