import { createHash } from 'node:crypto';
import { mkdir, readdir, rename, rm, symlink } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { ownBytes, TreeWriters, type FileJob } from './tree-writers.ts';
import { writeWhole } from './whole-files.ts';
import { hasVariants, VARIANTS } from './variants.ts';
import { entryIn, filesIn, goneFrom, hashIn, INPUT_SEPARATOR, inputIn, linesOf, parseLines, stateFileOf, stateText, treesDir, treesOf, type TreeState } from './tree-state.ts';

/**
 * Where a static tree is written, so that a rebuild rewrites only what changed and readers never
 * see a mix: `<out>` is a symlink to one of two trees, `.<out>-trees/a` and `…/b`. A build brings
 * the tree not in use up to date and then points `<out>` at it in one rename: a file whose
 * content hash is what that tree already holds is left alone; one the tree in use has is
 * hard-linked from it (with its compressed variants); only content neither has is written and
 * compressed; files the snapshot no longer has are deleted. A tree's list of files and hashes is
 * saved only once it is complete; a tree without one (a build was interrupted) starts empty.
 *
 * Most files of a city's tree are register items, half a million of them. An endpoint may give its
 * files in segments (see the item kind's files): groups of files named by a key and fingerprinted
 * together, whose lines of the state are kept as one text. A segment whose print is unchanged is
 * carried whole, its lines copied unread: a rebuild does no work per file for it.
 */

/** A segment of the tree being written: carried whole from the tree in use (its text), or made file by file. */
interface NextSegment {
  readonly print: string;
  /** Files added one by one; a carried segment has its count and text instead. */
  readonly files?: Map<string, string>;
  readonly count?: number;
  text?: string;
}

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
  private readonly stateFile: string;
  /** What the tree being written holds, as its state will list it: files not in segments, and segments. */
  private readonly next = new Map<string, string>();
  private readonly nextSegments = new Map<string, NextSegment>();
  /** Where files are compressed and written, off the main thread, which renders the next ones meanwhile. */
  private readonly writers = new TreeWriters((done) => {
    this.counts.written += done.written;
    this.counts.bytes += done.bytes;
    this.counts.linked += done.linked;
  });
  /** Whether files of the tree in use may be reused by their input: it was rendered the same way, and the build trusts inputs. */
  private readonly reusable: boolean;
  /** Whether `out` points at the tree written (see publish). */
  private published = false;

  private constructor(
    /** The path readers use: a symlink to the current tree. */
    readonly out: string,
    treeName: string,
    /** What the tree being written holds, if known. */
    private readonly previous: TreeState | undefined,
    /** The tree in use and what it holds. */
    private readonly current: { dir: string; state: TreeState } | undefined,
    private readonly renderKey: string,
    trustInputs: boolean,
  ) {
    this.reusable = trustInputs && current?.state.renderKey === renderKey;
    this.dir = join(treesDir(out), treeName);
    this.stateFile = stateFileOf(this.dir);
  }

  /**
   * Opens the tree not in use for writing. Refuses an `out` that is a directory odsnap did not
   * make. With `fresh`, every file is rendered again (content hashes still spare unchanged writes).
   */
  static async open(out: string, renderKey: string, options: { fresh?: boolean } = {}): Promise<TreeOutput> {
    const absolute = resolve(out);
    const { name, dir, state, inUse } = await treesOf(absolute);
    // From here on the tree is being changed; its saved state would be a lie if the build stopped.
    await rm(stateFileOf(dir), { force: true });
    await rm(`${dir}.json`, { force: true }); // as older builds saved it
    await mkdir(dir, { recursive: true });
    const output = new TreeOutput(absolute, name, state, inUse, renderKey, !options.fresh);
    if (!state) await output.emptyUnknownTree().catch(async (error: unknown) => {
      await output.close();
      throw error;
    });
    return output;
  }

  /** The input the tree in use made a file (of `segment`, if in one) from, when it rendered the same way. */
  previousInput(path: string, segment?: string): string | undefined {
    return this.reusable ? inputIn(entryIn(this.current!.state, path, segment)) : undefined;
  }

  /** The print of a segment of the tree in use, when it rendered the same way. */
  previousSegment(key: string): string | undefined {
    return this.reusable ? this.current!.state.segments.get(key)?.print : undefined;
  }

  /** Starts a segment whose files will be added one by one (write or carry with its key). */
  openSegment(key: string, print: string): void {
    if (/[\t\n]/.test(key + print)) throw new Error(`segment ${JSON.stringify(key)}: a key or print holds a tab or a line break`);
    if (this.nextSegments.has(key)) throw new Error(`the static tree got segment ${key} twice`);
    this.nextSegments.set(key, { print, files: new Map() });
  }

  /**
   * Keeps a whole segment of the tree in use, its print unchanged: its files are neither rendered
   * nor looked at, unless the tree being written lacks some of them (they are linked).
   */
  async carrySegment(key: string, print: string): Promise<void> {
    const segment = this.reusable ? this.current!.state.segments.get(key) : undefined;
    if (segment?.print !== print) throw new Error(`segment ${key} cannot be carried over: the tree in use was not made from the same input`);
    if (this.nextSegments.has(key)) throw new Error(`the static tree got segment ${key} twice`);
    this.nextSegments.set(key, { print, count: segment.count, text: segment.text });
    this.counts.files += segment.count;
    this.counts.carried += segment.count;
    const before = this.previous?.segments.get(key);
    if (before?.text === segment.text) return;
    for (const [path, entry] of filesIn(segment)) {
      if (hashIn(entryIn(this.previous, path, key)) === hashIn(entry)) continue;
      const waiting = this.linkFromCurrent(path, hasVariants(path));
      if (waiting) await waiting;
    }
  }

  /** Files of a segment of the tree being written, in the order its state lists them (by path). */
  segmentFiles(key: string): string[] {
    return [...parseLines(this.segmentText(key)).keys()];
  }

  /**
   * Keeps a file of the tree in use, unrendered: its input is what it was made from. Called for
   * most files of a rebuild, so it allocates nothing and returns a promise only when it has to wait.
   */
  carry(path: string, input: string, segment?: string): Promise<void> | undefined {
    const entry = this.reusable ? entryIn(this.current!.state, path, segment) : undefined;
    const made = entry !== undefined && entry.endsWith(input) && entry.charAt(entry.length - input.length - 1) === INPUT_SEPARATOR;
    if (!made) throw new Error(`${path} cannot be carried over: the tree in use was not made from the same input`);
    this.addEntry(path, entry, segment);
    this.counts.carried++;
    const previous = entryIn(this.previous, path, segment);
    if (previous === entry || (previous !== undefined && hashIn(previous) === hashIn(entry))) return undefined;
    return this.linkFromCurrent(path, hasVariants(path));
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
    return this.fromCurrent(path, input, `\n${ending.was}\n${ending.now}`, (source, target, replace) => ({ kind: 'reenvelope', source, target, ...ending, replace }));
  }

  /**
   * Adds the file of the tree in use with `insert` put before its `ending` (rows added at the end
   * of a list that ends the file); it must have been made from the same rendering. As with
   * replaceEnding, a writer thread reads it, and its content is named by what it is made from.
   */
  extend(path: string, append: { ending: string; insert: string }, input: string): Promise<void> | undefined {
    this.counts.extended++;
    return this.fromCurrent(path, input, `\n+${append.insert}\n${append.ending}`, (source, target, replace) => ({ kind: 'append', source, target, ...append, replace }));
  }

  /** Adds a file a writer thread makes from the tree in use's: named by that file's hash and `change`. */
  private fromCurrent(path: string, input: string, change: string, job: (source: string, target: string, replace: boolean) => FileJob): Promise<void> | undefined {
    if (!this.reusable) throw new Error(`${path}: the tree in use was rendered differently; its files cannot be reused`);
    const made = hashIn(this.current!.state.files.get(path));
    if (made === undefined) throw new Error(`${path} is not in the tree in use`);
    const hash = createHash('sha1').update(made).update(change).digest('base64url');
    this.add(path, hash, input);
    if (hashIn(this.previous?.files.get(path)) === hash) return undefined;
    this.writers.add(job(join(this.current!.dir, path), join(this.dir, path), this.mayBeThere(path)));
    return this.writers.room();
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
    if (hashIn(entryIn(this.previous, path, segment)) === hash) return;
    const compress = options.compress ?? hasVariants(path);
    if (hashIn(entryIn(this.current?.state, path, segment)) === hash) return this.linkFromCurrent(path, compress);
    const endingBytes = options.ending === undefined ? 0 : Buffer.byteLength(options.ending);
    const endsSo = endingBytes > 0 && endingBytes <= data.length && Buffer.from(data.buffer, data.byteOffset + data.length - endingBytes, endingBytes).toString() === options.ending;
    this.writers.add({ kind: 'write', target: join(this.dir, path), data, replace: this.mayBeThere(path), compress, endingBytes: endsSo ? endingBytes : 0 });
    return this.writers.room();
  }

  /** Adds a file as a hard link to an existing one (e.g. a snapshot's Parquet file), or a copy across file systems. */
  async link(path: string, source: string, hash: string): Promise<void> {
    this.add(path, hash);
    if (hashIn(this.previous?.files.get(path)) === hash) return;
    this.writers.add({ kind: 'link', source, target: join(this.dir, path) });
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
    if (this.published) return;
    // Its state first (saved if publishing failed after it): a state without its tree would say files are there.
    await rm(this.stateFile, { force: true });
    await rm(this.dir, { recursive: true, force: true });
  }

  /** Waits for every write, deletes what the snapshot no longer has, saves the tree's state and makes it current. */
  async publish(snapshot: string): Promise<void> {
    await this.writers.flush();
    for (const path of this.gone()) {
      await rm(join(this.dir, path), { force: true });
      for (const { suffix } of VARIANTS) await rm(join(this.dir, path + suffix), { force: true });
      this.counts.deleted++;
    }
    const segments = new Map([...this.nextSegments.keys()].map((key) => {
      const text = this.segmentText(key);
      const { print, files, count } = this.nextSegments.get(key)!;
      return [key, { print, count: files?.size ?? count!, text }];
    }));
    await writeWhole(this.stateFile, stateText({ snapshot, renderKey: this.renderKey, files: this.next, segments }));
    // A new symlink renamed over the old one: readers see the old tree or the new, never neither.
    const temporary = `${this.out}.${process.pid}.tmp`;
    await rm(temporary, { force: true });
    await symlink(relative(dirname(this.out), this.dir), temporary);
    await rename(temporary, this.out);
    this.published = true;
  }

  /** Lists a file in the tree being written: its content hash, and the input it was made from. */
  private add(path: string, hash: string, input?: string, segment?: string): void {
    this.addEntry(path, input === undefined ? hash : hash + INPUT_SEPARATOR + input, segment);
  }

  private addEntry(path: string, entry: string, segment?: string): void {
    const files = segment === undefined ? this.next : this.nextSegments.get(segment)?.files;
    if (!files) throw new Error(`${path}: segment ${segment} was not opened`);
    const size = files.size;
    files.set(path, entry);
    if (files.size === size) throw new Error(`the static tree got ${path} twice`);
    this.counts.files++;
  }

  /** A segment's lines in the tree being written, sorted by path (made once). */
  private segmentText(key: string): string {
    const segment = this.nextSegments.get(key);
    if (!segment) throw new Error(`the static tree has no segment ${key}`);
    return (segment.text ??= linesOf([...segment.files!].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
  }

  /** Files of the tree being written over that its new state does not list. */
  private gone(): Generator<string> {
    return goneFrom(this.previous, this.next, new Map([...this.nextSegments].map(([key, segment]) => [key, { text: this.segmentText(key), files: segment.files }])));
  }

  /**
   * Whether the tree being written may hold a file at `path` already: it holds exactly what its
   * state lists (a tree without one was emptied), and a file of a segment may be listed under
   * another segment, which is not looked into.
   */
  private mayBeThere(path: string): boolean {
    return this.previous !== undefined && (this.previous.segments.size > 0 || this.previous.files.has(path));
  }

  private linkFromCurrent(path: string, compress: boolean): Promise<void> | undefined {
    for (const suffix of compress ? ['', ...VARIANTS.map((e) => e.suffix)] : ['']) {
      this.writers.add({ kind: 'link', source: join(this.current!.dir, path + suffix), target: join(this.dir, path + suffix) });
    }
    return this.writers.room();
  }

  /** A tree whose state is unknown is emptied: every file will be written again. */
  private async emptyUnknownTree(): Promise<void> {
    for (const entry of await readdir(this.dir)) await rm(join(this.dir, entry), { recursive: true, force: true });
  }
}
