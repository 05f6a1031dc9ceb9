import { closeSync, fstatSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { extname, join, sep } from 'node:path';
import { CORS_LIST } from '../http/respond.ts';

/**
 * Finding a file of the tree on disk: the file a request's path names, with its precompressed
 * variants, each with the headers it is sent with, made once per file.
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

/** Files up to this size are kept in memory once read. */
const CACHE_FILE_BYTES = 512 * 1024;

export interface Variant {
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

/** A file of the tree, as it is and precompressed. */
export interface TreeFile {
  readonly identity: Variant;
  readonly br?: Variant;
  readonly gzip?: Variant;
  /** What its contents kept in memory take. */
  readonly bytes: number;
}

/** Endings of the files the tree holds, lower-cased: the types above, and the .br variants of some. */
const ENDINGS = new Set([...Object.keys(TYPES), '.br']);

/** A request's path with its percent-escapes decoded; undefined where they decode to no text. */
export function decodedPath(pathname: string): string | undefined {
  if (!pathname.includes('%')) return pathname;
  try {
    return decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
}

/**
 * Whether a request's path could name a file of a tree odsnap built, by its name alone: its last
 * segment, decoded, ends as a file of the tree does. The API's paths that a tree holds files at
 * are named so (a record's `…/transactions/T1.json`); a path that is not is no file of it.
 */
export function namedLikeAFile(pathname: string): boolean {
  const path = decodedPath(pathname);
  // The tree reads no path that does not decode (see staticTree).
  if (path === undefined) return false;
  // A folder's path names its index.html.
  if (path.endsWith('/')) return true;
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot >= 0 && ENDINGS.has(name.slice(dot).toLowerCase());
}

/** The file at `path` under the tree's real path `root`, unless it is no file or a symlink takes it out of the tree. */
function variantOf(root: string, path: string): Found | undefined {
  let stat: ReturnType<typeof statSync>;
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

export function readWhole(path: string): Buffer {
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
export function readTreeFile(root: string, path: string): TreeFile | null {
  const file = join(root, path);
  const identity = variantOf(root, file);
  if (!identity) return null;
  const extension = extname(path);
  const compressible = ['.json', '.jsonld', '.atom', '.html', '.js', '.mjs', '.css', '.svg', '.wasm'].includes(extension);
  const br = compressible ? variantOf(root, `${file}.br`) : undefined;
  const gzip = compressible ? variantOf(root, `${file}.gz`) : undefined;
  const bytes = [identity, br, gzip].reduce((sum, v) => sum + (v?.content?.length ?? 0), 0);
  const type = TYPES[extension] ?? 'application/octet-stream';
  const cacheControl = path.startsWith('/downloads/')
    ? 'public, max-age=3600'
    : path.startsWith('/_astro/')
      ? 'public, max-age=31536000, immutable'
      : 'public, max-age=300';
  // Made once per file: an object of headers per request, checked name by name, was a fifth of a small file's answer.
  const withHeaders = (found: Found, encoding?: 'br' | 'gzip'): Variant => ({
    ...found,
    headers: [
      ...CORS_LIST,
      'content-type',
      type,
      'cache-control',
      cacheControl,
      'accept-ranges',
      'bytes',
      'etag',
      found.etag,
      ...(br || gzip ? ['vary', 'Accept-Encoding'] : []),
      ...(encoding ? ['content-encoding', encoding] : []),
    ],
  });
  return { identity: withHeaders(identity), ...(br ? { br: withHeaders(br, 'br') } : {}), ...(gzip ? { gzip: withHeaders(gzip, 'gzip') } : {}), bytes };
}
