import { lstatSync, realpathSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { NOT_FOUND_PAGE } from '../core/published-tree.ts';
import { BigFiles } from './static-tree/big-files.ts';
import { sendFile } from './static-tree/file-answer.ts';
import { sendNotFoundPage } from './static-tree/not-found-page.ts';
import { PathMemory } from './static-tree/path-memory.ts';
import { decodedPath, readTreeFile, type TreeFile } from './static-tree/tree-files.ts';

export { namedLikeAFile, type TreeFile } from './static-tree/tree-files.ts';

/**
 * Serves a tree `odsnap build` wrote (and the site beside it): files as they are, with the
 * precompressed .br or .gz variant when the client takes it, a validator per file and 304s, and
 * byte ranges, so DuckDB, duckdb-wasm and hyparquet can read Parquet files remotely; and the
 * site's 404.html for a browser's request nothing answers. Which paths reach the tree is the
 * server's routing table's to say (server/routes.ts).
 *
 * `out` is the symlink odsnap build swaps; it is read again at most every half second, so a
 * rebuild is served without a restart. Small files are kept in memory, and paths the tree does not
 * hold are remembered, both for the symlink's own inode (which a rebuild replaces) and both
 * bounded by the bytes they take, paths included (see PathMemory). Only files whose real path is
 * inside the tree are served: a symlink in the tree to a file elsewhere is not followed.
 *
 * Its parts, in static-tree/: finding a file and its variants (tree-files.ts), answering with one
 * (file-answer.ts, big-files.ts for files too big to keep), the 404 page (not-found-page.ts).
 */
export interface StaticTree {
  /** The file of the tree a request's path names; undefined when there is none, or no tree served. */
  fileAt(pathname: string): TreeFile | undefined;
  /** Answers with a file of the tree: the variant the client takes, a 304, a byte range. */
  send(request: IncomingMessage, response: ServerResponse, file: TreeFile): Promise<number>;
  /** Answers with the site's 404.html, status 404, when the tree holds one; false when not. */
  notFoundPage(request: IncomingMessage, response: ServerResponse): Promise<number> | false;
  /** Reads the symlink again at the next request, not half a second after the last. */
  clear(): void;
}

/** Files kept in memory, up to this much in all, their paths counted. */
const CACHE_BYTES = 64 * 1024 * 1024;
/**
 * Paths that are no file of the tree, remembered up to this much: a stat that finds nothing costs
 * more than a look-up in memory. Kept small, as clients choose these paths, as many and as long as
 * they like.
 */
const MISSES_BYTES = 4 * 1024 * 1024;
const RECHECK_MS = 500;

/**
 * `accepts`: whether to serve the tree at a root (read when the symlink changes); one refused is
 * not served, as with no tree at all.
 */
export function staticTree(out: string, accepts: (root: string) => boolean = () => true): StaticTree {
  const link = resolve(out);
  let checkedAt = 0;
  let generation = -1;
  /** The tree's real path, symlinks resolved: served files must be under it. */
  let root: string | undefined;
  const files = new PathMemory<TreeFile>(CACHE_BYTES);
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

  const lookUp = (tree: string, path: string): TreeFile | undefined => {
    const found = files.get(path);
    if (found) return found;
    if (misses.get(path)) return undefined;
    const file = readTreeFile(tree, path);
    if (file) files.set(path, file, file.bytes);
    else misses.set(path, true);
    return file ?? undefined;
  };

  return {
    fileAt(pathname) {
      const tree = currentRoot();
      if (!tree) return undefined;
      let path = decodedPath(pathname);
      if (path === undefined) return undefined;
      if (path.endsWith('/')) path += 'index.html';
      // Nothing hidden (no segment starts with a dot, which also keeps out `..`), nothing outside the tree.
      if (path.includes('\0') || path.includes('/.')) return undefined;
      // One name per file (`//a` is `/a`, as the file system reads it), so a file is remembered once.
      if (path.includes('//')) path = path.replace(/\/{2,}/g, '/');
      return lookUp(tree, path);
    },
    send: (request, response, file) => sendFile(request, response, file, bigFiles),
    notFoundPage(request, response) {
      const tree = currentRoot();
      const page = tree && lookUp(tree, `/${NOT_FOUND_PAGE}`);
      return page ? sendNotFoundPage(request, response, page) : false;
    },
    clear: () => void (checkedAt = 0),
  };
}
