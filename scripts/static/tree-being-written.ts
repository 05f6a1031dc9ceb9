import { mkdir, readdir, rename, rm, symlink } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { VARIANTS } from './variants.ts';
import { writeWhole } from './whole-files.ts';
import { entryIn, hashIn, sameLines, stateFileOf, treesOf, type TreeState } from './tree-state.ts';

/**
 * Where a build's files go: the one of `<out>`'s two trees (`.<out>-trees/a` and `…/b`) that
 * `<out>` does not point at. What it held before is known from its saved state, so that a file it
 * holds already is not written again; a tree without a state (a build was interrupted) is emptied.
 * Once complete, its state is saved and `<out>` is pointed at it in one rename.
 */
export class TreeBeingWritten {
  /** The tree, absolute. */
  readonly dir: string;
  private readonly stateFile: string;

  private constructor(
    /** The path readers use: a symlink to the tree in use. */
    private readonly out: string,
    dir: string,
    /** What the tree held before this build, if known. */
    readonly previous: TreeState | undefined,
  ) {
    this.dir = dir;
    this.stateFile = stateFileOf(dir);
  }

  /**
   * The tree not in use, made ready to be written, and the tree in use with what it holds.
   * Refuses an `out` that is a directory odsnap did not make.
   */
  static async open(out: string): Promise<{ tree: TreeBeingWritten; inUse: { dir: string; state: TreeState } | undefined }> {
    const absolute = resolve(out);
    const { dir, state, inUse } = await treesOf(absolute);
    try {
      // From here on the tree is being changed; its saved state would be a lie if the build stopped.
      // It is still read (see readState): what it held tells which files need not be written again.
      await rm(stateFileOf(dir), { force: true });
      await rm(`${dir}.json`, { force: true }); // as older builds saved it
      await mkdir(dir, { recursive: true });
    } catch (error) {
      state?.close();
      inUse?.state.close();
      throw error;
    }
    return { tree: new TreeBeingWritten(absolute, dir, state), inUse };
  }

  /** Where it holds a file. */
  pathOf(path: string): string {
    return join(this.dir, path);
  }

  /** Whether it held a file of this content hash at `path` (in `segment`, if in one) before. */
  holds(path: string, hash: string, segment?: string): boolean {
    return hashIn(entryIn(this.previous, path, segment)) === hash;
  }

  /** Whether it held a file of the same content as `entry` (a line of a state) before; allocates nothing when the entry is the same. */
  holdsEntry(path: string, entry: string, segment?: string): boolean {
    const before = entryIn(this.previous, path, segment);
    return before === entry || (before !== undefined && hashIn(before) === hashIn(entry));
  }

  /** Whether it held a segment with exactly these lines before. */
  holdsSegment(key: string, text: string): boolean {
    return sameLines(this.previous?.segments.get(key), text);
  }

  /**
   * Whether it may hold a file at `path` already: it holds exactly what its state lists (a tree
   * without one was emptied), and a file of a segment may be listed under another segment, which
   * is not looked into.
   */
  mayBeThere(path: string): boolean {
    return this.previous !== undefined && (this.previous.segments.size > 0 || this.previous.files.has(path));
  }

  /** A tree whose state is unknown is emptied: every file will be written again. */
  async emptyIfUnknown(): Promise<void> {
    if (this.previous) return;
    for (const entry of await readdir(this.dir)) await rm(join(this.dir, entry), { recursive: true, force: true });
  }

  /** Deletes a file and its variants. */
  async delete(path: string): Promise<void> {
    await rm(join(this.dir, path), { force: true });
    for (const { suffix } of VARIANTS) await rm(join(this.dir, path + suffix), { force: true });
  }

  /** Saves what it holds (its state, which `write` writes to the file it is given), then points `out` at it. */
  async swapIn(write: (fd: number) => void): Promise<void> {
    await writeWhole(this.stateFile, write);
    // A new symlink renamed over the old one: readers see the old tree or the new, never neither.
    const temporary = `${this.out}.${process.pid}.tmp`;
    await rm(temporary, { force: true });
    await symlink(relative(dirname(this.out), this.dir), temporary);
    await rename(temporary, this.out);
  }

  /** Deletes it, its state first (saved if swapping in failed after it): a state without its tree would say files are there. */
  async discard(): Promise<void> {
    await rm(this.stateFile, { force: true });
    await rm(this.dir, { recursive: true, force: true });
  }
}
