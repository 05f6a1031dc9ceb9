import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { Worker } from 'node:worker_threads';
import { filesOfState, readState } from '../scripts/static/tree-state.ts';
import { ownBytes, TreeWriters } from '../scripts/static/tree-writers.ts';

/**
 * What odsnap build is compared with in the same run (see build-tree.ts): a raw write of the same
 * paths and sizes on writer threads, the tree's JSON compressed alone, and the files a rebuild
 * must write at the least.
 */

/** Every file of a tree, relative. */
export async function filesOf(tree: string): Promise<string[]> {
  const entries = await readdir(tree, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(tree, join(e.parentPath, e.name)));
}

/** Bytes read from the tree's own files, up to `size`: what the raw write writes from. */
export async function bytePool(tree: string, files: readonly string[], size: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let length = 0;
  for (let i = 0; i < files.length && length < size; i += Math.max(1, Math.floor(files.length / 4096))) {
    const content = await readFile(join(tree, files[i]!));
    parts.push(content);
    length += content.length;
  }
  return Buffer.concat(parts).subarray(0, size);
}

export type Sized = readonly { path: string; size: number }[];

/** Slices of `pool`, one file's size after another, wrapping round. */
export function poolSlicer(pool: Buffer) {
  let offset = 0;
  return (size: number) => {
    if (offset + size > pool.length) offset = 0;
    const part = pool.subarray(offset, offset + size);
    offset += size;
    return size <= pool.length ? part : Buffer.alloc(size, part);
  };
}

/**
 * A raw write of the same paths and sizes from `pool`: synchronous writes on writer threads,
 * handed over in batches, as the build writes (tree-writers.ts). It starts on a synced disk; only
 * the writes are timed.
 */
export async function rawWrite(files: Sized, pool: Buffer, target: string) {
  settle();
  const slice = poolSlicer(pool);
  let bytes = 0;
  const started = performance.now();
  const writers = new TreeWriters(() => {});
  try {
    for (const { path, size } of files) {
      writers.add({ kind: 'write', target: join(target, path), data: ownBytes(slice(size)), replace: false, compress: false, endingBytes: 0 });
      bytes += size;
      await writers.room();
    }
    await writers.flush();
  } finally {
    await writers.close();
  }
  return { seconds: (performance.now() - started) / 1000, bytes };
}

/** Sizes of the given files of a tree. */
export async function sized(tree: string, files: readonly string[]) {
  const result: { path: string; size: number }[] = [];
  for (const path of files) result.push({ path, size: (await stat(join(tree, path))).size });
  return result;
}

/** Written data on its way to the disk before a timed step: no step pays for the last one's writeback. */
export const settle = () => void spawnSync('sync');

/**
 * rm -rf (fs.rm holds the names of a city's million files in memory and took ten minutes), only
 * at the end of a run: every tree a run writes stays until then. Without a journal (as here), ext4
 * does not reuse an inode freed in the last 5 s, or in the last 5 min while its inode-table block
 * is unwritten, and a new file's inode is found by looking past every such one
 * (fs/ext4/ialloc.c, `recently_deleted`; in perf, a tenth of a build's CPU). On this machine a
 * raw write of the city's tree took 52 s, and 106 s when it came 6 s after deleting a tree as
 * large: whichever side of a comparison came sooner after a deletion lost.
 */
export const remove = (dir: string) => void spawnSync('rm', ['-rf', dir]);

/**
 * The tree's JSON compressed alone: each file's .gz and .br made as the build's writer threads make
 * them (variants.ts), on as many threads, from the disk cache, nothing written.
 */
export async function compressAlone(tree: string, jsonFiles: readonly string[]) {
  const threads = Array.from({ length: Math.min(4, availableParallelism()) }, () => new Worker(new URL('./compress-thread.js', import.meta.url)));
  // The threads start (and load TypeScript) before the clock does.
  await Promise.all(
    threads.map(
      (worker) =>
        new Promise<void>((resolve) => {
          worker.once('message', () => resolve());
          worker.postMessage([]);
        }),
    ),
  );
  let next = 0;
  let bytes = 0;
  settle();
  const started = performance.now();
  await Promise.all(
    threads.map(async (worker) => {
      while (next < jsonFiles.length) {
        const paths = jsonFiles.slice(next, (next += 500)).map((path) => join(tree, path));
        bytes += await new Promise<number>((resolve, reject) => {
          worker.once('error', reject);
          worker.once('message', (made: number) => {
            worker.off('error', reject);
            resolve(made);
          });
          worker.postMessage(paths);
        });
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(threads.map((worker) => worker.terminate()));
  return { seconds, bytes, threads: threads.length };
}

/** Files of tree `to` whose content tree `from` does not have at the same path (by the trees' saved lists of hashes), with their variants. */
export async function changedFiles(from: string, to: string): Promise<string[]> {
  const hashes = async (tree: string) => {
    const state = await readState(tree);
    if (!state) return new Map<string, string>();
    const files = filesOfState(state);
    state.close();
    return files;
  };
  const before = await hashes(from);
  const hashOf = (entry: string | undefined) => entry?.split('\t')[0];
  return [...(await hashes(to))]
    .filter(([path, entry]) => !path.endsWith('.parquet') && hashOf(before.get(path)) !== hashOf(entry))
    .flatMap(([path]) => (path.endsWith('.json') ? [path, `${path}.gz`, `${path}.br`] : [path]))
    .filter((path) => existsSync(join(to, path)));
}
