import { type FileHandle, lstat, open, readdir, readFile, readlink, rm } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { basename, dirname, join } from 'node:path';
import { readAt } from '../../core/file-bytes.ts';

/**
 * What a static tree holds, as saved beside it once it is complete (see tree-output.ts): every
 * file's content hash and the input it was made from, files in segments kept as one text each.
 */

/**
 * A segment of a tree's state: files made from one group of rows. Its lines stay in the state
 * file until asked for: held, a national tree's segments took more than a gigabyte, twice over
 * when a build reads the states of both trees.
 */
export interface Segment {
  /** The fingerprint of everything its files are made from. */
  readonly print: string;
  readonly count: number;
  /** The length of its lines, in characters. */
  readonly length: number;
  /** Its files' lines, `path\tentry\n` each, sorted by path. */
  text(): string;
  /**
   * Its files, path → entry, parsed from its lines when first asked and kept: a build asks for
   * files of many segments in turn (items come in row order, their segments by a hash of the key),
   * but only of segments that changed.
   */
  files(): Map<string, string>;
}

export interface TreeState {
  readonly snapshot: string;
  /** How files were rendered (links' base, the rendering code); inputs count only under the same key. */
  readonly renderKey: string;
  /**
   * Path (relative) → content hash of every file but the compressed variants, followed, for files
   * that have one, by a tab and the fingerprint of what the file was made from. One string per
   * file: a city's tree has half a million paths, and a second map held each of them again.
   */
  readonly files: Map<string, string>;
  /** The segments, by key; their files are not in `files`. */
  readonly segments: Map<string, Segment>;
  /** Lets go of the state file its segments are read from. */
  close(): void;
}

export const INPUT_SEPARATOR = '\t';
export const hashIn = (entry: string | undefined) => {
  if (entry === undefined) return undefined;
  const tab = entry.indexOf(INPUT_SEPARATOR);
  return tab < 0 ? entry : entry.slice(0, tab);
};
export const inputIn = (entry: string | undefined) => {
  const tab = entry?.indexOf(INPUT_SEPARATOR) ?? -1;
  return tab < 0 ? undefined : entry!.slice(tab + 1);
};

/** A file's entry in a state: looked up in its segment, if it has one, and among the loose files. */
export const entryIn = (state: TreeState | undefined, path: string, segment?: string) => {
  if (!state) return undefined;
  const inSegment = segment === undefined ? undefined : state.segments.get(segment);
  return (inSegment && inSegment.files().get(path)) ?? state.files.get(path);
};

/**
 * A tree's state is saved as text beside it, `<tree>.state`: a JSON line with the snapshot and the
 * render key, then a line per file, its path, a tab and its entry. Half a million paths read and
 * written this way take far less time than as one JSON object of tens of megabytes. A path holding
 * a tab or a line break, or starting with a quote, is written as a JSON string.
 */
export const stateFileOf = (tree: string) => `${tree}.state`;

/** The state's first line. */
export const stateHead = (snapshot: string, renderKey: string) => `${JSON.stringify({ snapshot, renderKey })}\n`;

/**
 * A segment's line: it starts with a tab (no path is empty) and gives its key, print, files and
 * the length of its lines (`text`, which follow it).
 */
export const segmentHead = (key: string, print: string, count: number, text: string) => `\t${key}\t${print}\t${count}\t${text.length}\n`;

export function linesOf(files: Iterable<[string, string]>): string {
  const parts = [];
  for (const [path, entry] of files) parts.push(/[\t\n"]/.test(path) ? JSON.stringify(path) : path, '\t', entry, '\n');
  return parts.join('');
}

/** Reads `path\tentry` lines into a map of files. */
function readLine(line: string, files: Map<string, string>): void {
  const tab = line.indexOf('\t');
  if (tab <= 0) throw new Error(`a static tree's state has an unreadable line: ${JSON.stringify(line.slice(0, 200))}`);
  const path = line.slice(0, tab);
  files.set(path.startsWith('"') ? (JSON.parse(path) as string) : path, line.slice(tab + 1));
}

export const parseLines = (text: string) => {
  const files = new Map<string, string>();
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop(); // the last line's break
  for (const line of lines) readLine(line, files);
  return files;
};

/**
 * The files and hashes of a tree, as its saved state lists them; undefined when it has none (it is
 * incomplete). Read line by line: the state of a national tree is longer than the longest string
 * V8 makes, so it is never one string. Its segments are read again when asked for, from the file
 * kept open (a build deletes the state of the tree it writes over, and still reads it).
 */
export async function readState(tree: string): Promise<TreeState | undefined> {
  const input = await open(stateFileOf(tree)).catch(() => undefined);
  if (!input) return readJsonState(tree);
  const file = new StateFile(input, stateFileOf(tree));
  try {
    let head: { snapshot: string; renderKey: string } | undefined;
    const files = new Map<string, string>();
    const segments = new Map<string, Segment>();
    /** The segment whose lines are being read: where they start, and their length so far in characters and in bytes. */
    let segment: { key: string; print: string; count: number; length: number; offset: number; characters: number; bytes: number } | undefined;
    const closeSegment = () => {
      if (!segment) return;
      if (segment.characters !== segment.length)
        throw new Error(`a static tree's state has a segment ${segment.key} of ${segment.characters} characters, not ${segment.length}`);
      segments.set(segment.key, file.segment(segment.print, segment.count, segment.length, segment.key, { offset: segment.offset, bytes: segment.bytes }));
      segment = undefined;
    };
    let offset = 0;
    for await (const line of linesIn(input)) {
      const bytes = Buffer.byteLength(line) + 1;
      if (!head) head = JSON.parse(line) as typeof head;
      else if (line.startsWith('\t')) {
        // A segment's line: its lines follow, up to the next segment's or the end.
        closeSegment();
        const [, key, print, count, length] = line.split('\t');
        segment = { key: key!, print: print!, count: Number(count), length: Number(length), offset: offset + bytes, characters: 0, bytes: 0 };
      } else if (segment) {
        segment.characters += line.length + 1;
        segment.bytes += bytes;
      } else readLine(line, files);
      offset += bytes;
    }
    closeSegment();
    if (!head) {
      file.close();
      return undefined;
    }
    return { snapshot: head.snapshot, renderKey: head.renderKey, files, segments, close: () => file.close() };
  } catch (error) {
    file.close();
    throw error;
  }
}

/** A state file kept open for its segments' lines, read when asked. */
class StateFile {
  private open = true;
  /** Segments' files once parsed, by key. */
  private readonly parsed = new Map<string, Map<string, string>>();

  constructor(
    private readonly handle: FileHandle,
    private readonly path: string,
  ) {}

  segment(print: string, count: number, length: number, key: string, at: { readonly offset: number; readonly bytes: number }): Segment {
    const text = () => this.text(at);
    const files = () => {
      let parsed = this.parsed.get(key);
      if (!parsed) this.parsed.set(key, (parsed = parseLines(text())));
      return parsed;
    };
    return { print, count, length, text, files };
  }

  private text({ offset, bytes }: { readonly offset: number; readonly bytes: number }): string {
    if (!this.open) throw new Error(`${this.path} was read after it was closed`);
    const data = Buffer.allocUnsafe(bytes);
    readAt(this.handle.fd, data, bytes, offset, this.path);
    return data.toString('utf8');
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    this.parsed.clear();
    // Nothing waits for it: the file is only read, so closing it cannot lose anything.
    this.handle.close().catch(() => undefined);
  }
}

/** The lines of a file, split at line feeds alone: a path may hold a carriage return. */
async function* linesIn(file: FileHandle): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  const chunk = Buffer.allocUnsafe(1 << 20);
  let rest = '';
  for (let read = (await file.read(chunk, 0, chunk.length)).bytesRead; read > 0; read = (await file.read(chunk, 0, chunk.length)).bytesRead) {
    const lines = (rest + decoder.write(chunk.subarray(0, read))).split('\n');
    rest = lines.pop()!;
    yield* lines;
  }
  rest += decoder.end();
  if (rest) yield rest;
}

/** Every file a state lists, in segments or not. */
export function filesOfState(state: TreeState): Map<string, string> {
  const files = new Map(state.files);
  for (const segment of state.segments.values()) for (const [path, entry] of segment.files()) files.set(path, entry);
  return files;
}

/** A state saved as JSON, by odsnap before 2026-11-22. */
const readJsonState = (tree: string) =>
  readFile(`${tree}.json`, 'utf8').then(
    (text) => {
      const state = JSON.parse(text) as { snapshot: string; renderKey: string; files: Record<string, string>; inputs?: Record<string, string> };
      // Trees written before hashes and inputs shared one map: read them into it.
      for (const [path, input] of Object.entries(state.inputs ?? {})) state.files[path] += INPUT_SEPARATOR + input;
      return {
        snapshot: state.snapshot,
        renderKey: state.renderKey,
        files: new Map(Object.entries(state.files)),
        segments: new Map<string, Segment>(),
        close: () => undefined,
      };
    },
    () => undefined,
  );

/**
 * Files a tree being written over held that its new state does not list: `next` its files not in
 * segments, `nextSegments` the keys of its segments and `textOf` their lines. A segment the same as
 * before is not looked into: its files were listed once, in it, so no other segment holds them.
 */
export function* goneFrom(
  previous: TreeState | undefined,
  next: ReadonlyMap<string, string>,
  nextSegments: Iterable<string>,
  textOf: (key: string) => string,
): Generator<string> {
  if (!previous) return;
  const changed = new Set<string>();
  const unchanged = new Set<string>();
  for (const key of nextSegments) {
    const text = textOf(key);
    if (sameLines(previous.segments.get(key), text)) unchanged.add(key);
    else for (const path of parseLines(text).keys()) changed.add(path);
  }
  const kept = (path: string) => next.has(path) || changed.has(path);
  for (const path of previous.files.keys()) if (!kept(path)) yield path;
  for (const [key, segment] of previous.segments) {
    if (unchanged.has(key)) continue;
    for (const path of segment.files().keys()) if (!kept(path)) yield path;
  }
}

/** Whether a segment has exactly these lines: read only when they are as long. */
export const sameLines = (segment: Segment | undefined, text: string) => segment !== undefined && segment.length === text.length && segment.text() === text;

export const treesDir = (out: string) => join(dirname(out), `.${basename(out)}-trees`);

/** The tree a build writes (the one `out` does not point at) and what it holds, and the tree in use. */
export async function treesOf(
  out: string,
): Promise<{ name: 'a' | 'b'; dir: string; state: TreeState | undefined; inUse: { dir: string; state: TreeState } | undefined }> {
  const current = await currentTree(out);
  const name = current === 'a' ? 'b' : 'a';
  const dir = join(treesDir(out), name);
  const currentDir = current && join(treesDir(out), current);
  const currentState = currentDir && (await readState(currentDir));
  return { name, dir, state: await readState(dir), inUse: currentDir && currentState ? { dir: currentDir, state: currentState } : undefined };
}

/** Which tree `out` points at: 'a', 'b', or undefined when it does not exist yet. */
async function currentTree(out: string): Promise<'a' | 'b' | undefined> {
  const stat = await lstat(out).catch(() => undefined);
  if (!stat) return undefined;
  if (!stat.isSymbolicLink()) {
    if (stat.isDirectory() && (await readdir(out)).length === 0) {
      await rm(out, { recursive: true });
      return undefined;
    }
    throw new Error(`${out} exists and is not a tree odsnap built; move it away or choose another --out`);
  }
  const target = basename(await readlink(out));
  return target === 'a' || target === 'b' ? target : undefined;
}
