import { closeSync, openSync, rmSync } from 'node:fs';
import { readAt, writeAt } from '../../core/file-bytes.ts';
import { namingPath } from './whole-files.ts';
import { goneFrom, linesOf, parseLines, segmentHead, stateHead, type Segment, type TreeState } from './tree-state.ts';

/**
 * A segment of the tree being written: carried whole from the tree in use (its lines read from
 * that tree's state when needed), made file by file while its endpoint is written (its files), or,
 * once that endpoint is done, its lines set down in the spill file (where they are).
 */
interface NextSegment {
  readonly print: string;
  files?: Map<string, string>;
  count?: number;
  carried?: Segment;
  spilled?: { readonly offset: number; readonly bytes: number };
}

/**
 * What the tree being written will list in its state (see tree-state.ts): each file's entry (its
 * content hash and input), files not in segments and segments, each file once.
 *
 * The lines of a segment made file by file go to a file beside the state (`spill`) once their
 * endpoint is done (`closeSegments`), and the state is written from there: held in memory, the
 * register's items made the build's memory grow with the data, a line per file.
 */
export class NextState {
  private readonly files = new Map<string, string>();
  private readonly segments = new Map<string, NextSegment>();
  private spillFd: number | undefined;
  private spillSize = 0;

  constructor(private readonly spill: string) {}

  /** Lists a file, in `segment` if given (which must be open). */
  add(path: string, entry: string, segment?: string): void {
    const files = segment === undefined ? this.files : this.segments.get(segment)?.files;
    if (!files) throw new Error(`${path}: segment ${segment} was not opened, or was closed`);
    const size = files.size;
    files.set(path, entry);
    if (files.size === size) throw new Error(`the static tree got ${path} twice`);
  }

  /** Starts a segment whose files will be added one by one. */
  openSegment(key: string, print: string): void {
    if (/[\t\n]/.test(key + print)) throw new Error(`segment ${JSON.stringify(key)}: a key or print holds a tab or a line break`);
    this.newSegment(key, { print, files: new Map() });
  }

  /** Lists a segment carried whole, its lines as the tree in use's state has them. */
  keepSegment(key: string, carried: Segment): void {
    this.newSegment(key, { print: carried.print, count: carried.count, carried });
  }

  /** Sets down the lines of every open segment in the spill file: their files are all in. */
  closeSegments(): void {
    for (const segment of this.segments.values()) {
      if (!segment.files) continue;
      const text = Buffer.from(linesByPath(segment.files));
      try {
        this.spillFd ??= openSync(this.spill, 'w+');
        writeAt(this.spillFd, text, this.spillSize);
      } catch (error) {
        throw namingPath(this.spill, error);
      }
      segment.spilled = { offset: this.spillSize, bytes: text.length };
      segment.count = segment.files.size;
      segment.files = undefined;
      this.spillSize += text.length;
    }
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
      put(segmentHead(key, segment.print, segment.files?.size ?? segment.count!, text));
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
    if (segment.spilled) {
      const data = Buffer.allocUnsafe(segment.spilled.bytes);
      readAt(this.spillFd!, data, data.length, segment.spilled.offset, this.spill);
      return data.toString('utf8');
    }
    return segment.carried?.text() ?? linesByPath(segment.files!);
  }
}

/** A segment's files as the state's lines, sorted by path. */
const linesByPath = (files: Map<string, string>) => linesOf([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
