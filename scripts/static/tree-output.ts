import { createHash } from 'node:crypto';
import { NextState } from './next-state.ts';
import { TreeBeingWritten } from './tree-being-written.ts';
import { TreeInUse } from './tree-in-use.ts';
import { hashIn, INPUT_SEPARATOR } from './tree-state.ts';
import { ownBytes, TreeWriters, type FileJob } from './tree-writers.ts';
import { hasVariants, VARIANTS } from './variants.ts';

/**
 * Where a static tree is written, so that a rebuild rewrites only what changed and readers never
 * see a mix: `<out>` is a symlink to one of two trees, and a build brings the tree not in use up
 * to date (tree-being-written.ts) and then points `<out>` at it in one rename. A file whose content
 * hash is what that tree already holds is left alone; one the tree in use has is hard-linked from
 * it (with its compressed variants), and one whose input is unchanged is carried over from it
 * unrendered (tree-in-use.ts); only content neither has is written and compressed, on writer
 * threads (tree-writers.ts); files the snapshot no longer has are deleted. The tree's list of
 * files and hashes (next-state.ts) is saved only once it is complete.
 *
 * Most files of a city's tree are register items, half a million of them. An endpoint may give its
 * files in segments (see the item kind's files): groups of files named by a key and fingerprinted
 * together, whose lines of the state are kept as one text. A segment whose print is unchanged is
 * carried whole, its lines copied unread: a rebuild does no work per file for it.
 */

export interface TreeCounts {
  /** Files the tree holds, compressed variants not counted. */
  files: number;
  /** Files written (content neither tree had), and bytes written, variants included. */
  written: number;
  bytes: number;
  /** Files hard-linked from the tree in use, variants included. */
  linked: number;
  /** Files carried over without being rendered (their input was unchanged). */
  carried: number;
  /** Pages made from the tree in use's file with a new ending: their rows were not rendered again. */
  reenveloped: number;
  /** Files made from the tree in use's with rows added at the end: only those rows were rendered. */
  extended: number;
  /** Files deleted because the snapshot no longer has them. */
  deleted: number;
}

const contentHash = (data: Uint8Array) => createHash('sha1').update(data).digest('base64url');

export class TreeOutput {
  readonly counts: TreeCounts = { files: 0, written: 0, bytes: 0, linked: 0, carried: 0, reenveloped: 0, extended: 0, deleted: 0 };
  /** The tree being written, absolute. */
  readonly dir: string;
  private readonly next: NextState;
  /** Where files are compressed and written, off the main thread, which renders the next ones meanwhile. */
  private readonly writers = new TreeWriters((done) => {
    this.counts.written += done.written;
    this.counts.bytes += done.bytes;
    this.counts.linked += done.linked;
  });
  /** Whether `out` points at the tree written (see publish). */
  private published = false;

  private constructor(
    private readonly tree: TreeBeingWritten,
    private readonly inUse: TreeInUse,
    private readonly renderKey: string,
  ) {
    this.dir = tree.dir;
    this.next = new NextState(`${tree.dir}.state-next`);
  }

  /**
   * Opens the tree not in use for writing. Refuses an `out` that is a directory odsnap did not
   * make. With `fresh`, every file is rendered again (content hashes still spare unchanged writes).
   */
  static async open(out: string, renderKey: string, options: { fresh?: boolean } = {}): Promise<TreeOutput> {
    const { tree, inUse } = await TreeBeingWritten.open(out);
    const output = new TreeOutput(tree, new TreeInUse(inUse, renderKey, !options.fresh), renderKey);
    await tree.emptyIfUnknown().catch(async (error: unknown) => {
      await output.close();
      throw error;
    });
    return output;
  }

  /** The input the tree in use made a file (of `segment`, if in one) from, when it rendered the same way. */
  previousInput(path: string, segment?: string): string | undefined {
    return this.inUse.inputOf(path, segment);
  }

  /** The print of a segment of the tree in use, when it rendered the same way. */
  previousSegment(key: string): string | undefined {
    return this.inUse.printOf(key);
  }

  /** Starts a segment whose files will be added one by one (write or carry with its key). */
  openSegment(key: string, print: string): void {
    this.next.openSegment(key, print);
  }

  /**
   * Keeps a whole segment of the tree in use, its print unchanged: its files are neither rendered
   * nor looked at, unless the tree being written lacks some of them (they are linked).
   */
  async carrySegment(key: string, print: string): Promise<void> {
    const segment = this.inUse.carriedSegment(key, print);
    this.next.keepSegment(key, segment);
    this.counts.files += segment.count;
    this.counts.carried += segment.count;
    if (this.tree.holdsSegment(key, segment.text())) return;
    for (const [path, entry] of segment.files()) {
      if (this.tree.holds(path, hashIn(entry)!, key)) continue;
      const waiting = this.linkFromInUse(path, hasVariants(path));
      if (waiting) await waiting;
    }
  }

  /** Says the segments opened so far have all their files: their lines go to disk (see NextState). */
  closeSegments(): void {
    this.next.closeSegments();
  }

  /** Files of a segment of the tree being written, in the order its state lists them (by path). */
  segmentFiles(key: string): string[] {
    return this.next.segmentFiles(key);
  }

  /**
   * Keeps a file of the tree in use, unrendered: its input is what it was made from. Called for
   * most files of a rebuild, so it allocates nothing and returns a promise only when it has to wait.
   */
  carry(path: string, input: string, segment?: string): Promise<void> | undefined {
    const entry = this.inUse.carriedEntry(path, input, segment);
    this.addEntry(path, entry, segment);
    this.counts.carried++;
    if (this.tree.holdsEntry(path, entry, segment)) return undefined;
    return this.linkFromInUse(path, hasVariants(path));
  }

  /**
   * Adds the file of the tree in use with its ending changed, `was` replaced by `now`; the file
   * must have been made from the same rendering (see previousInput). A writer thread reads it and
   * makes its variants from the tree in use's by replacing their stored ending (see variants.ts).
   * Its content is named by what it is made from (the file's hash and both endings), not read
   * here to be hashed: thousands of pages change only their total after a pull.
   */
  replaceEnding(path: string, ending: { was: string; now: string }, input: string): Promise<void> | undefined {
    this.counts.reenveloped++;
    return this.fromInUse(path, input, `\n${ending.was}\n${ending.now}`, (source, target, replace) => ({
      kind: 'reenvelope',
      source,
      target,
      ...ending,
      replace,
    }));
  }

  /**
   * Adds the file of the tree in use with `insert` put before its `ending` (rows added at the end
   * of a list that ends the file); it must have been made from the same rendering. As with
   * replaceEnding, a writer thread reads it, and its content is named by what it is made from.
   */
  extend(path: string, append: { ending: string; insert: string }, input: string): Promise<void> | undefined {
    this.counts.extended++;
    return this.fromInUse(path, input, `\n+${append.insert}\n${append.ending}`, (source, target, replace) => ({
      kind: 'append',
      source,
      target,
      ...append,
      replace,
    }));
  }

  /**
   * Adds a file (JSON and JSON-LD get .gz and .br beside it); written only when neither tree has this content.
   * `ending`: the end of the content a later build may replace (see variants.ts).
   */
  async write(path: string, content: Buffer | string, options: { compress?: boolean; input?: string; ending?: string; segment?: string } = {}): Promise<void> {
    // Encoded once: hashed here, then handed to a writer thread.
    const data = ownBytes(content);
    const hash = contentHash(data);
    const { segment } = options;
    this.add(path, hash, options.input, segment);
    if (this.tree.holds(path, hash, segment)) return;
    const compress = options.compress ?? hasVariants(path);
    if (this.inUse.hashOf(path, segment) === hash) return this.linkFromInUse(path, compress);
    const endingBytes = options.ending === undefined ? 0 : Buffer.byteLength(options.ending);
    const endsSo =
      endingBytes > 0 &&
      endingBytes <= data.length &&
      Buffer.from(data.buffer, data.byteOffset + data.length - endingBytes, endingBytes).toString() === options.ending;
    this.writers.add({
      kind: 'write',
      target: this.tree.pathOf(path),
      data,
      replace: this.tree.mayBeThere(path),
      compress,
      endingBytes: endsSo ? endingBytes : 0,
    });
    return this.writers.room();
  }

  /** Adds a file as a hard link to an existing one (e.g. a snapshot's Parquet file), or a copy across file systems. */
  async link(path: string, source: string, hash: string): Promise<void> {
    this.add(path, hash);
    if (this.tree.holds(path, hash)) return;
    this.writers.add({ kind: 'link', source, target: this.tree.pathOf(path) });
    await this.writers.room();
  }

  /** Waits for the writes so far: the tree being written then holds every file added (for readers such as the site build). */
  flush(): Promise<void> {
    return this.writers.flush();
  }

  /**
   * Stops the writer threads and, unless the tree was published, deletes what was written of it:
   * a build that failed (a full disk) leaves no partial tree behind, and the next build would
   * empty it anyway (its state is gone). Call it last, whether the build succeeded or not.
   */
  async close(): Promise<void> {
    await this.writers.close();
    this.next.close();
    this.tree.previous?.close();
    this.inUse.close();
    if (!this.published) await this.tree.discard();
  }

  /** Waits for every write, deletes what the snapshot no longer has, saves the tree's state and makes it current. */
  async publish(snapshot: string): Promise<void> {
    await this.writers.flush();
    for (const path of this.next.gone(this.tree.previous)) {
      await this.tree.delete(path);
      this.counts.deleted++;
    }
    await this.tree.swapIn((fd) => this.next.write(fd, snapshot, this.renderKey));
    this.published = true;
  }

  /** Adds a file a writer thread makes from the tree in use's: named by that file's hash and `change`. */
  private fromInUse(
    path: string,
    input: string,
    change: string,
    job: (source: string, target: string, replace: boolean) => FileJob,
  ): Promise<void> | undefined {
    const hash = this.inUse.changedHash(path, change);
    this.add(path, hash, input);
    if (this.tree.holds(path, hash)) return undefined;
    this.writers.add(job(this.inUse.pathOf(path), this.tree.pathOf(path), this.tree.mayBeThere(path)));
    return this.writers.room();
  }

  /** Lists a file in the tree being written: its content hash, and the input it was made from. */
  private add(path: string, hash: string, input?: string, segment?: string): void {
    this.addEntry(path, input === undefined ? hash : hash + INPUT_SEPARATOR + input, segment);
  }

  private addEntry(path: string, entry: string, segment?: string): void {
    this.next.add(path, entry, segment);
    this.counts.files++;
  }

  private linkFromInUse(path: string, compress: boolean): Promise<void> | undefined {
    for (const suffix of compress ? ['', ...VARIANTS.map((e) => e.suffix)] : ['']) {
      this.writers.add({ kind: 'link', source: this.inUse.pathOf(path + suffix), target: this.tree.pathOf(path + suffix) });
    }
    return this.writers.room();
  }
}
