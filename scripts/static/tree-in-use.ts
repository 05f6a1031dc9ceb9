import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { entryIn, hashIn, INPUT_SEPARATOR, inputIn, type Segment, type TreeState } from './tree-state.ts';

/**
 * What a build may keep of the tree in use (the one `out` points at): a file whose input is
 * unchanged is carried over unrendered, a segment whose print is unchanged is carried whole, and a
 * page is made from its file with a new ending or with rows appended. Only when that tree was
 * rendered the same way (the same render key) and the build trusts inputs (not `--full`); a file
 * of the same content is linked from it in any case.
 */
export class TreeInUse {
  /** Whether its files may be reused by their input. */
  private readonly reusable: boolean;

  constructor(
    private readonly tree: { readonly dir: string; readonly state: TreeState } | undefined,
    renderKey: string,
    trustInputs: boolean,
  ) {
    this.reusable = trustInputs && tree?.state.renderKey === renderKey;
  }

  /** The input it made a file (of `segment`, if in one) from, when it rendered the same way. */
  inputOf(path: string, segment?: string): string | undefined {
    return this.reusable ? inputIn(entryIn(this.tree!.state, path, segment)) : undefined;
  }

  /** The print of one of its segments, when it rendered the same way. */
  printOf(key: string): string | undefined {
    return this.reusable ? this.tree!.state.segments.get(key)?.print : undefined;
  }

  /**
   * A file's entry in its state, to carry over: it must have been made from `input`. Called for
   * most files of a rebuild, so it allocates nothing.
   */
  carriedEntry(path: string, input: string, segment?: string): string {
    const entry = this.reusable ? entryIn(this.tree!.state, path, segment) : undefined;
    const made = entry !== undefined && entry.endsWith(input) && entry.charAt(entry.length - input.length - 1) === INPUT_SEPARATOR;
    if (!made) throw new Error(`${path} cannot be carried over: the tree in use was not made from the same input`);
    return entry;
  }

  /** One of its segments, to carry over whole: it must have the same print. */
  carriedSegment(key: string, print: string): Segment {
    const segment = this.reusable ? this.tree!.state.segments.get(key) : undefined;
    if (segment?.print !== print) throw new Error(`segment ${key} cannot be carried over: the tree in use was not made from the same input`);
    return segment;
  }

  /**
   * The content hash of its file at `path` with `change` made to it: named by what it is made from
   * (the file's hash and the change), not read to be hashed. The file must have been made from the
   * same rendering.
   */
  changedHash(path: string, change: string): string {
    if (!this.reusable) throw new Error(`${path}: the tree in use was rendered differently; its files cannot be reused`);
    const made = hashIn(this.tree!.state.files.get(path));
    if (made === undefined) throw new Error(`${path} is not in the tree in use`);
    return createHash('sha1').update(made).update(change).digest('base64url');
  }

  /** The content hash of a file it holds, however it was rendered: a file of the same content is linked from it. */
  hashOf(path: string, segment?: string): string | undefined {
    return hashIn(entryIn(this.tree?.state, path, segment));
  }

  /** Lets go of its state's file (see TreeState.close). */
  close(): void {
    this.tree?.state.close();
  }

  /** Where it holds a file (one it holds). */
  pathOf(path: string): string {
    return join(this.tree!.dir, path);
  }
}
