import { goneFrom, linesOf, parseLines, type Segment, type TreeState } from './tree-state.ts';

/** A segment of the tree being written: carried whole from the tree in use (its text), or made file by file. */
interface NextSegment {
  readonly print: string;
  /** Files added one by one; a carried segment has its count and text instead. */
  readonly files?: Map<string, string>;
  readonly count?: number;
  text?: string;
}

/**
 * What the tree being written will list in its state (see tree-state.ts): each file's entry (its
 * content hash and input), files not in segments and segments, each file once.
 */
export class NextState {
  private readonly files = new Map<string, string>();
  private readonly segments = new Map<string, NextSegment>();

  /** Lists a file, in `segment` if given (which must be open). */
  add(path: string, entry: string, segment?: string): void {
    const files = segment === undefined ? this.files : this.segments.get(segment)?.files;
    if (!files) throw new Error(`${path}: segment ${segment} was not opened`);
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
  keepSegment(key: string, { print, count, text }: Segment): void {
    this.newSegment(key, { print, count, text });
  }

  /** Files of a segment, in the order the state lists them (by path). */
  segmentFiles(key: string): string[] {
    return [...parseLines(this.segmentText(key)).keys()];
  }

  /** Files `previous` (what the tree held before) lists that this state does not. */
  gone(previous: TreeState | undefined): Generator<string> {
    return goneFrom(previous, this.files, new Map([...this.segments].map(([key, segment]) => [key, { text: this.segmentText(key), files: segment.files }])));
  }

  /** The state to save. */
  state(snapshot: string, renderKey: string): TreeState {
    const segments = new Map(
      [...this.segments.keys()].map((key) => {
        const text = this.segmentText(key);
        const { print, files, count } = this.segments.get(key)!;
        return [key, { print, count: files?.size ?? count!, text }];
      }),
    );
    return { snapshot, renderKey, files: this.files, segments };
  }

  private newSegment(key: string, segment: NextSegment): void {
    if (this.segments.has(key)) throw new Error(`the static tree got segment ${key} twice`);
    this.segments.set(key, segment);
  }

  /** A segment's lines, sorted by path (made once). */
  private segmentText(key: string): string {
    const segment = this.segments.get(key);
    if (!segment) throw new Error(`the static tree has no segment ${key}`);
    return (segment.text ??= linesOf([...segment.files!].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
  }
}
