import { closeSync, createReadStream, fstatSync, lstatSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import type { ExtraHandler } from './app.ts';
import { CORS_LIST, matches, negotiate, type Encoding } from './http/respond.ts';
import { NOT_FOUND_PAGE } from '../core/published-tree.ts';

/**
 * Serves a tree `odsnap build` wrote (and, later, the site beside it): files as they are, with
 * the precompressed .br or .gz variant when the client takes it, a validator per file and 304s,
 * and byte ranges, so DuckDB, duckdb-wasm and hyparquet can read Parquet files remotely. Paths
 * that are not files of the tree pass on to the API; those nothing answers get the site's
 * 404.html when a browser asks (`notFoundPage`, which the app calls).
 *
 * `out` is the symlink odsnap build swaps; it is read again at most every half second, so a
 * rebuild is served without a restart. Small files are kept in memory, and paths the tree does not
 * hold are remembered, both for the symlink's own inode (which a rebuild replaces) and both
 * bounded by the bytes they take, paths included (see PathMemory). Only files whose real path is
 * inside the tree are served: a symlink in the tree to a file elsewhere is not followed.
 */

const TYPES: Readonly<Record<string, string>> = {
  '.json': 'application/json; charset=utf-8',
  '.jsonld': 'application/ld+json; charset=utf-8',
  '.parquet': 'application/vnd.apache.parquet',
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.wasm': 'application/wasm',
  '.woff2': 'font/woff2',
  '.csv': 'text/csv; charset=utf-8',
  // A .csv.gz download is a gzip file, saved as it is: not content the client should decompress.
  '.gz': 'application/gzip',
  '.sql': 'application/sql; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.conf': 'text/plain; charset=utf-8',
  '.xml': 'application/xml',
  '.atom': 'application/atom+xml; charset=utf-8',
};

/** Files up to this size are kept in memory once read… */
const CACHE_FILE_BYTES = 512 * 1024;
/** …up to this much in all, their paths counted. */
const CACHE_BYTES = 64 * 1024 * 1024;
/**
 * Paths that are no file of the tree, remembered up to this much: every API request passes by the
 * tree first, and a stat that finds nothing costs more than a look-up in memory. Kept small, as
 * clients choose these paths, as many and as long as they like.
 */
const MISSES_BYTES = 4 * 1024 * 1024;
/** What an entry of a map costs beyond its key and the bytes its value holds (the map's slot, small objects): a guess on the high side. */
const ENTRY_BYTES = 512;
const RECHECK_MS = 500;
/** Ranges (or whole files) up to this size are read at once and sent as one buffer; longer ones stream. */
const READ_AT_ONCE_BYTES = 1024 * 1024;

interface Variant {
  readonly path: string;
  readonly size: number;
  readonly etag: string;
  /** The bytes, for small files. */
  readonly content?: Buffer;
  /** Its headers but the length, as the flat list writeHead takes fastest. */
  readonly headers: string[];
}

/** A file as found on disk, before its headers are known. */
type Found = Omit<Variant, 'headers'>;

interface Entry {
  readonly identity: Variant;
  readonly br?: Variant;
  readonly gzip?: Variant;
  readonly bytes: number;
}

/**
 * `accepts`: whether to serve the tree at a root (read when the symlink changes); one refused is
 * not served, its paths passing on to the API, as with no tree at all.
 */
export function staticTree(out: string, accepts: (root: string) => boolean = () => true): ExtraHandler & { clear(): void; notFoundPage: NonNullable<ExtraHandler['notFoundPage']> } {
  const link = resolve(out);
  let checkedAt = 0;
  let generation = -1;
  /** The tree's real path, symlinks resolved: served files must be under it. */
  let root: string | undefined;
  const files = new PathMemory<Entry>(CACHE_BYTES);
  const misses = new PathMemory<true>(MISSES_BYTES);
  const bigFiles = new BigFiles();

  const currentRoot = () => {
    const now = Date.now();
    if (now - checkedAt < RECHECK_MS) return root;
    checkedAt = now;
    let ino = 0;
    try {
      const stat = lstatSync(link);
      ino = stat.ino * 1000 + (stat.isSymbolicLink() ? 1 : 0);
      if (ino !== generation) root = realpathSync.native(link);
    } catch {
      root = undefined;
    }
    if (ino !== generation) {
      generation = ino;
      files.clear();
      misses.clear();
      bigFiles.forget();
      if (root && !accepts(root)) root = undefined;
    }
    return root;
  };

  const lookUp = (tree: string, path: string): Entry | null => {
    const found = files.get(path);
    if (found) return found;
    if (misses.get(path)) return null;
    const entry = readEntry(tree, path);
    if (entry) files.set(path, entry, entry.bytes);
    else misses.set(path, true);
    return entry;
  };

  const handler = (request: IncomingMessage, response: ServerResponse, url: URL): Promise<number> | false => {
    const tree = currentRoot();
    if (!tree) return false;
    let path = url.pathname;
    if (path.includes('%')) {
      try {
        path = decodeURIComponent(path);
      } catch {
        return false;
      }
    }
    if (path.endsWith('/')) path += 'index.html';
    // Nothing hidden (no segment starts with a dot, which also keeps out `..`), nothing outside the tree.
    if (path.includes('\0') || path.includes('/.')) return false;
    // One name per file (`//a` is `/a`, as the file system reads it), so a file is remembered once.
    if (path.includes('//')) path = path.replace(/\/{2,}/g, '/');
    const entry = lookUp(tree, path);
    if (!entry) return false;
    return respond(request, response, entry, bigFiles);
  };
  /** The site's 404.html, when the tree holds one. */
  const notFoundPage = (request: IncomingMessage, response: ServerResponse): Promise<number> | false => {
    const tree = currentRoot();
    const entry = tree && lookUp(tree, `/${NOT_FOUND_PAGE}`);
    return entry ? respondNotFound(request, response, entry) : false;
  };
  return Object.assign(handler, { clear: () => (checkedAt = 0), notFoundPage });
}


/** A file of the tree as the body of a 404: whole, not to be cached or validated (the path may have a page tomorrow). */
async function respondNotFound(request: IncomingMessage, response: ServerResponse, entry: Entry): Promise<number> {
  const encoding = negotiate(request.headers['accept-encoding']);
  const variant = (encoding === 'br' && entry.br) || (encoding === 'gzip' && entry.gzip) || entry.identity;
  const headers: string[] = [];
  for (let i = 0; i < variant.headers.length; i += 2) {
    const name = variant.headers[i]!;
    if (name === 'etag' || name === 'accept-ranges' || name === 'cache-control') continue;
    headers.push(name, variant.headers[i + 1]!);
  }
  const content = variant.content ?? readWhole(variant.path);
  response.writeHead(404, [...headers, 'cache-control', 'no-store', 'content-length', String(content.length)]);
  if (request.method === 'HEAD') {
    response.end();
    return 0;
  }
  response.end(content);
  return content.length;
}

/** The file at `path` under the tree's real path `root`, unless it is no file or a symlink takes it out of the tree. */
function variantOf(root: string, path: string): Found | undefined {
  let stat;
  try {
    stat = statSync(path, { throwIfNoEntry: false });
    if (!stat?.isFile()) return undefined;
    path = realpathSync.native(path);
  } catch {
    return undefined;
  }
  if (!path.startsWith(root + sep)) return undefined;
  const etag = `"${stat.ino.toString(36)}-${stat.size.toString(36)}-${Math.floor(stat.mtimeMs).toString(36)}"`;
  return { path, size: stat.size, etag, content: stat.size <= CACHE_FILE_BYTES ? readWhole(path) : undefined };
}

function readWhole(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const buffer = Buffer.allocUnsafe(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, buffer, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

/** The file of the tree at `root` (its real path) that a request `path` names, with its variants; null when there is none. */
function readEntry(root: string, path: string): Entry | null {
  const file = join(root, path);
  const identity = variantOf(root, file);
  if (!identity) return null;
  const extension = extname(path);
  const compressible = ['.json', '.jsonld', '.atom', '.html', '.js', '.mjs', '.css', '.svg', '.wasm'].includes(extension);
  const br = compressible ? variantOf(root, `${file}.br`) : undefined;
  const gzip = compressible ? variantOf(root, `${file}.gz`) : undefined;
  const bytes = [identity, br, gzip].reduce((sum, v) => sum + (v?.content?.length ?? 0), 0);
  const type = TYPES[extension] ?? 'application/octet-stream';
  const cacheControl = path.startsWith('/downloads/') ? 'public, max-age=3600' : path.startsWith('/_astro/') ? 'public, max-age=31536000, immutable' : 'public, max-age=300';
  // Made once per file: an object of headers per request, checked name by name, was a fifth of a small file's answer.
  const withHeaders = (found: Found, encoding?: 'br' | 'gzip'): Variant => ({
    ...found,
    headers: [
      ...CORS_LIST,
      'content-type', type,
      'cache-control', cacheControl,
      'accept-ranges', 'bytes',
      'etag', found.etag,
      ...(br || gzip ? ['vary', 'Accept-Encoding'] : []),
      ...(encoding ? ['content-encoding', encoding] : []),
    ],
  });
  return { identity: withHeaders(identity), ...(br ? { br: withHeaders(br, 'br') } : {}), ...(gzip ? { gzip: withHeaders(gzip, 'gzip') } : {}), bytes };
}

/** A single byte range of a `size`-byte file, or 'unsatisfiable'; undefined to send the whole file. */
function rangeOf(header: string | undefined, size: number): [number, number] | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // Several ranges, or another unit: the whole file is a valid answer.
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
    if (start > end || start >= size) return 'unsatisfiable';
  }
  return [start, end];
}

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
class BigFiles {
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
    const fd = this.descriptorOf(path);
    for (let read = 0; read < length; ) {
      const n = readSync(fd, buffer, read, length - read, start + read);
      if (n === 0) throw new Error(`${path} ended before its size`);
      read += n;
    }
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

/** What an entry of a map takes: its key (two bytes a character, as a string past Latin-1 is held), its value's bytes, the rest. */
const memoryOf = (key: string, value?: Uint8Array) => 2 * key.length + (value?.length ?? 0) + ENTRY_BYTES;

/**
 * A map from what clients send (paths, ranges) that forgets everything once its entries pass
 * `limit` bytes: their keys, as long as clients make them, and the bytes each value holds, as the
 * caller counts them: bounded by entries alone, it grew with the length of the paths clients chose.
 */
class PathMemory<V> {
  private readonly entries = new Map<string, V>();
  private bytes = 0;

  constructor(private readonly limit: number) {}

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  /** Remembers a value for a key it does not hold; `valueBytes`: the memory the value holds beyond small objects. */
  set(key: string, value: V, valueBytes = 0): void {
    const bytes = memoryOf(key) + valueBytes;
    if (this.bytes + bytes > this.limit) this.clear();
    if (bytes > this.limit) return;
    this.entries.set(key, value);
    this.bytes += bytes;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}

/** Answers with a file of the tree: from memory when small, else by `bigFiles`. */
async function respond(request: IncomingMessage, response: ServerResponse, entry: Entry, bigFiles: BigFiles): Promise<number> {
  const rangeHeader = request.headers.range;
  // Ranges are of the file as it is; only whole answers come compressed.
  const encoding: Encoding = rangeHeader ? 'identity' : negotiate(request.headers['accept-encoding']);
  const variant = (encoding === 'br' && entry.br) || (encoding === 'gzip' && entry.gzip) || entry.identity;
  if (matches(request.headers['if-none-match'], variant.etag)) {
    response.writeHead(304, variant.headers).end();
    return 0;
  }
  let range = rangeOf(rangeHeader, variant.size);
  const ifRange = request.headers['if-range'];
  if (range && ifRange && ifRange !== variant.etag) range = undefined;
  if (range === 'unsatisfiable') {
    response.writeHead(416, [...variant.headers, 'content-range', `bytes */${variant.size}`, 'content-length', '0']).end();
    return 0;
  }
  const [start, end] = range ?? [0, variant.size - 1];
  const length = Math.max(0, end - start + 1);
  response.writeHead(range ? 206 : 200, range ? [...variant.headers, 'content-length', String(length), 'content-range', `bytes ${start}-${end}/${variant.size}`] : [...variant.headers, 'content-length', String(length)]);
  if (request.method === 'HEAD' || length === 0) {
    response.end();
    return 0;
  }
  if (variant.content) {
    response.end(range ? variant.content.subarray(start, end + 1) : variant.content);
    return length;
  }
  if (length <= READ_AT_ONCE_BYTES) {
    bigFiles.send(response, variant.path, start, length);
    return length;
  }
  await new Promise<void>((done, fail) => {
    const stream = createReadStream(variant.path, { start, end });
    stream.on('error', fail);
    response.on('close', () => {
      stream.destroy();
      done();
    });
    stream.pipe(response);
  });
  return length;
}
