import { closeSync, openSync, rmSync } from 'node:fs';
import { readAt, writeAt } from '../../core/file-bytes.ts';
import { namingPath } from './whole-files.ts';
import { goneFrom, linesOf, parseLines, segmentHead, stateHead, type Segment, type TreeState } from './tree-state.ts';

/**
 * A segment of the tree being written: carried whole from the tree in use (its lines read from
 * that tree's state when needed), or made file by file while its endpoint is written, its lines
 * set down in the spill file a piece at a time (`pieces`) and sorted when read.
 */
interface NextSegment {
  readonly print: string;
  count: number;
  carried?: Segment;
  /** Lines not set down yet (path and entry), while its endpoint is written; undefined once closed. */
  pending?: [string, string][];
  /** Where its lines are in the spill file, in the order they came, while it is open. */
  pieces?: Place[];
  /** Where its lines are in the spill file, sorted by path, once it is closed. */
  sorted?: Place;
}

/** A run of bytes in the spill file. */
interface Place {
  readonly offset: number;
  readonly bytes: number;
}

/** Lines held in all before they are set down in the spill file: a bound on the build's memory, whatever the data. */
export const LINES_HELD = 50_000;

/**
 * What the tree being written will list in its state (see tree-state.ts): each file's entry (its
 * content hash and input), files not in segments and segments, each file once.
 *
 * The lines of segments made file by file go to a file beside the state (`spill`) every
 * LINES_HELD lines, and the state is written from there: held until their endpoint was done, the
 * register's items made the build's memory grow with the data, a line per file. Items come in row
 * order and their segments by a hash of the key, so each segment's pieces are sorted when read.
 */
export class NextState {
  private readonly files = new Map<string, string>();
  private readonly segments = new Map<string, NextSegment>();
  private spillFd: number | undefined;
  private spillSize = 0;
  private linesHeld = 0;

  constructor(private readonly spill: string) {}

  /** Lists a file, in `segment` if given (which must be open). */
  add(path: string, entry: string, segment?: string): void {
    if (segment === undefined) {
      const size = this.files.size;
      this.files.set(path, entry);
      if (this.files.size === size) throw new Error(`the static tree got ${path} twice`);
      return;
    }
    const open = this.segments.get(segment);
    if (!open?.pending) throw new Error(`${path}: segment ${segment} was not opened, or was closed`);
    open.pending.push([path, entry]);
    open.count++;
    if (++this.linesHeld >= LINES_HELD) this.setDown();
  }

  /** Starts a segment whose files will be added one by one. */
  openSegment(key: string, print: string): void {
    if (/[\t\n]/.test(key + print)) throw new Error(`segment ${JSON.stringify(key)}: a key or print holds a tab or a line break`);
    this.newSegment(key, { print, count: 0, pending: [], pieces: [] });
  }

  /** Lists a segment carried whole, its lines as the tree in use's state has them. */
  keepSegment(key: string, carried: Segment): void {
    this.newSegment(key, { print: carried.print, count: carried.count, carried });
  }

  /**
   * Closes every open segment, their files being all in: its pieces are read back once, sorted by
   * path and set down again as one run, which the listing and the saved state then read as it is.
   */
  closeSegments(): void {
    this.linesHeld = 0;
    for (const segment of this.segments.values()) {
      if (!segment.pending) continue;
      const text = Buffer.from(this.sortedLines(segment));
      this.append(text);
      segment.sorted = { offset: this.spillSize - text.length, bytes: text.length };
      segment.pending = undefined;
      segment.pieces = undefined;
    }
  }

  /** Sets down the lines held of every open segment in the spill file, in one write. */
  private setDown(): void {
    const texts: Buffer[] = [];
    let offset = this.spillSize;
    for (const segment of this.segments.values()) {
      if (!segment.pending?.length) continue;
      const text = Buffer.from(linesOf(segment.pending));
      texts.push(text);
      segment.pieces!.push({ offset, bytes: text.length });
      segment.pending = [];
      offset += text.length;
    }
    this.linesHeld = 0;
    if (texts.length) this.append(Buffer.concat(texts));
  }

  /** Writes at the end of the spill file. */
  private append(data: Buffer): void {
    try {
      this.spillFd ??= openSync(this.spill, 'w+');
      writeAt(this.spillFd, data, this.spillSize);
    } catch (error) {
      throw namingPath(this.spill, error);
    }
    this.spillSize += data.length;
  }

  private read({ offset, bytes }: Place): string {
    const data = Buffer.allocUnsafe(bytes);
    readAt(this.spillFd!, data, bytes, offset, this.spill);
    return data.toString('utf8');
  }

  /** Files of a segment, in the order the state lists them (by path). */
  segmentFiles(key: string): string[] {
    return [...parseLines(this.segmentText(key)).keys()];
  }

  /** Files `previous` (what the tree held before) lists that this state does not. */
  gone(previous: TreeState | undefined): Generator<string> {
    return goneFrom(previous, this.files, this.segments.keys(), (key) => this.segmentText(key));
  }

  /** Writes the state to `fd` (see tree-state.ts), a segment at a time. */
  write(fd: number, snapshot: string, renderKey: string): void {
    const put = (text: string) => writeAt(fd, Buffer.from(text));
    put(stateHead(snapshot, renderKey));
    put(linesOf(this.files));
    for (const [key, segment] of this.segments) {
      const text = this.segmentText(key);
      put(segmentHead(key, segment.print, segment.count, text));
      put(text);
    }
  }

  /** Removes the spill file. */
  close(): void {
    if (this.spillFd !== undefined) closeSync(this.spillFd);
    this.spillFd = undefined;
    rmSync(this.spill, { force: true });
  }

  private newSegment(key: string, segment: NextSegment): void {
    if (this.segments.has(key)) throw new Error(`the static tree got segment ${key} twice`);
    this.segments.set(key, segment);
  }

  /** A segment's lines, sorted by path. */
  private segmentText(key: string): string {
    const segment = this.segments.get(key);
    if (!segment) throw new Error(`the static tree has no segment ${key}`);
    if (segment.carried) return segment.carried.text();
    return segment.sorted ? this.read(segment.sorted) : this.sortedLines(segment);
  }

  /** The lines of a segment still open, from its pieces and those held, sorted by path. */
  private sortedLines(segment: NextSegment): string {
    const files = new Map<string, string>();
    for (const piece of [...segment.pieces!.map((place) => parseLines(this.read(place))), segment.pending ?? []])
      for (const [path, entry] of piece) {
        if (files.has(path)) throw new Error(`the static tree got ${path} twice`);
        files.set(path, entry);
      }
    return linesByPath(files);
  }
}

/** A segment's files as the state's lines, sorted by path. */
const linesByPath = (files: Map<string, string>) => linesOf([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
