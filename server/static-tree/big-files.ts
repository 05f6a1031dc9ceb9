import { closeSync, openSync } from 'node:fs';
import { readAt } from '../../core/file-bytes.ts';
import type { ServerResponse } from 'node:http';
import { memoryOf, PathMemory } from './path-memory.ts';

/**
 * Buffers for ranges read at once, used again: a new 64 KiB buffer per request made the garbage
 * collector's work follow the bytes sent, and its pauses the slowest answers. By powers of two
 * from 64 KiB, a few kept of each.
 */
const readBuffers = {
  free: new Map<number, Buffer[]>(),
  sizeOf: (length: number) => Math.max(64 * 1024, 2 ** Math.ceil(Math.log2(length))),
  take(length: number): Buffer {
    return this.free.get(this.sizeOf(length))?.pop() ?? Buffer.allocUnsafeSlow(this.sizeOf(length));
  },
  give(buffer: Buffer): void {
    let kept = this.free.get(buffer.length);
    if (!kept) this.free.set(buffer.length, (kept = []));
    if (kept.length < 16) kept.push(buffer);
  },
};

/** Ranges up to this size asked for twice are kept… */
const KEPT_RANGE_BYTES = 256 * 1024;
/** …up to this much in all, their keys counted (a range may be one byte long). */
const KEPT_RANGES_BYTES = 8 * 1024 * 1024;
/** Ranges asked for once are remembered up to this much. */
const SEEN_RANGES_BYTES = 4 * 1024 * 1024;

/**
 * Files too big to keep whole, for the tree's present generation: ranges are read by one
 * positioned read, through a descriptor kept open (a stream per request costs an open, reads, a
 * close and their events for every range). A range asked for a second time is kept: every reader
 * of a Parquet file fetches the same footer first, and then the same hot column chunks, which a
 * read per request would read again where nginx answers them from the page cache by sendfile.
 * Kept on the second ask only, so that ranges asked once each do not turn every read into a new
 * buffer for the collector. docs/performance.md has what each step gained.
 */
export class BigFiles {
  private readonly descriptors = new Map<string, number>();
  /** Ranges asked for once, by key; forgotten all at once when they fill their memory (a reader scanning a file). */
  private readonly seen = new PathMemory<true>(SEEN_RANGES_BYTES);
  /** Ranges asked for again, oldest first: the oldest go when more would pass KEPT_RANGES_BYTES. */
  private readonly kept = new Map<string, Buffer>();
  private keptBytes = 0;

  /** Writes bytes `start`..`start + length` of the file as the body, ending the response. */
  send(response: ServerResponse, path: string, start: number, length: number): void {
    const key = length <= KEPT_RANGE_BYTES ? `${start}:${length}:${path}` : undefined;
    if (key === undefined || !this.seen.get(key)) {
      if (key !== undefined) this.seen.set(key, true);
      const buffer = this.read(path, start, length, readBuffers.take(length));
      // Given back once written (a connection closed first leaves it to the garbage collector).
      response.end(buffer.subarray(0, length), () => readBuffers.give(buffer));
      return;
    }
    let kept = this.kept.get(key);
    if (!kept) {
      // Asked before: read into a buffer of its own, and keep it.
      kept = this.read(path, start, length, Buffer.allocUnsafeSlow(length));
      // When full, the oldest go down to three quarters of the memory, in one pass: removed one at a
      // time, each removal walked past the holes of the ones before.
      if (this.keptBytes + memoryOf(key, kept) > KEPT_RANGES_BYTES) {
        for (const [oldest, bytes] of this.kept) {
          if (this.keptBytes + memoryOf(key, kept) <= KEPT_RANGES_BYTES * 0.75) break;
          this.kept.delete(oldest);
          this.keptBytes -= memoryOf(oldest, bytes);
        }
      }
      this.kept.set(key, kept);
      this.keptBytes += memoryOf(key, kept);
    }
    response.end(kept);
  }

  private read(path: string, start: number, length: number, buffer: Buffer): Buffer {
    readAt(this.descriptorOf(path), buffer, length, start, path);
    return buffer;
  }

  private descriptorOf(path: string): number {
    let fd = this.descriptors.get(path);
    if (fd === undefined) {
      if (this.descriptors.size >= 256) this.closeDescriptors();
      this.descriptors.set(path, (fd = openSync(path, 'r')));
    }
    return fd;
  }

  private forgetRanges(): void {
    this.seen.clear();
    this.kept.clear();
    this.keptBytes = 0;
  }

  private closeDescriptors(): void {
    for (const fd of this.descriptors.values()) closeSync(fd);
    this.descriptors.clear();
  }

  /** The tree changed: close the descriptors and drop what was kept of its files. */
  forget(): void {
    this.closeDescriptors();
    this.forgetRanges();
  }
}
