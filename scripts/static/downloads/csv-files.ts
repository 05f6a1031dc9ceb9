import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { csvCopyOptions, csvSelectList } from '../../../core/db/csv.ts';
import { quoteString, type Database } from '../../../core/db/duckdb.ts';
import type { Snapshot } from '../../../core/snapshot/read.ts';
import { tableSource } from '../../../core/snapshot/read.ts';
import { sourceHash } from '../../../core/source-hash.ts';
import type { Dataset } from '../../../datasets/vocabulary/dataset.ts';
import { namingPath, writeWhole } from '../whole-files.ts';

/**
 * The CSV twin of every Parquet file, gzip-compressed, written by DuckDB in the conventions of
 * core/db/csv.ts. Made once per Parquet file: kept in a cache beside the trees, named by the
 * Parquet file's sha256 and by the code that writes CSV, so a rebuild after a pull converts only
 * the files the pull changed. The tree hard-links the cached files.
 *
 * DuckDB writes plain CSV and zlib compresses it on libuv's threads while DuckDB writes the next
 * file. DuckDB's own gzip writer compresses on one thread at level 6, several times slower than
 * writing plain and compressing apart. Converting is the longest step of a rebuild after a day's
 * pull (the register's properties, the largest file, change with every pull), and level 1 makes
 * files only a little larger than level 4 or 6 in a fraction of the time (measured in
 * docs/performance.md).
 */

/** zlib's level: see above. */
const GZIP_LEVEL = 1;
/** Files being compressed while DuckDB writes the next one. */
const COMPRESSING = 2;

export interface CsvFile {
  /** The cached file, to be linked into the tree. */
  readonly file: string;
  readonly bytes: number;
  readonly sha256: string;
}

/** CSV files by the sha256 of the Parquet file they were made from. */
export type CsvFiles = ReadonlyMap<string, CsvFile>;

const formatKey = async () => (await sourceHash([new URL('../../../core/db/csv.ts', import.meta.url), new URL(import.meta.url)])).slice(0, 12);

/** Gzips a file into another; the bytes and sha256 of what it wrote. */
async function gzipFile(from: string, to: string): Promise<Omit<CsvFile, 'file'>> {
  const hash = createHash('sha256');
  let bytes = 0;
  const measured = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(createReadStream(from), createGzip({ level: GZIP_LEVEL }), measured, createWriteStream(to));
  return { bytes, sha256: hash.digest('hex') };
}

/**
 * Converts every Parquet file of the snapshot's tables that the cache lacks (every one, with
 * `fresh`), one after the other on `db`, and deletes cached files no table has any more.
 */
export async function makeCsvFiles(
  db: Database,
  snapshot: Snapshot,
  datasets: readonly Dataset[],
  cacheDir: string,
  options: { fresh?: boolean; signal?: AbortSignal; onFile?: () => void } = {},
): Promise<CsvFiles> {
  await mkdir(cacheDir, { recursive: true });
  const key = await formatKey();
  const made = new Map<string, CsvFile>();
  const compressing = new Set<Promise<void>>();
  /** Parquet files by sha256 already made or being made: the same file in two places is converted once. */
  const seen = new Set<string>();
  for (const dataset of datasets) {
    for (const table of Object.values(dataset.tables)) {
      const columns = Object.entries(table.columns).map(([name, column]) => ({ name, type: column.sqlType }));
      for (const parquet of snapshot.manifest.datasets[dataset.name]!.tables[table.name]!.files) {
        if (seen.has(parquet.sha256)) continue;
        seen.add(parquet.sha256);
        options.signal?.throwIfAborted();
        const stem = join(cacheDir, `${key}-${parquet.sha256}`);
        const file = `${stem}.csv.gz`;
        const known = options.fresh
          ? undefined
          : await readFile(`${stem}.json`, 'utf8').then(
              (text) => JSON.parse(text) as Omit<CsvFile, 'file'>,
              () => undefined,
            );
        if (known) {
          made.set(parquet.sha256, { file, ...known });
          continue;
        }
        // Written aside and renamed: a cached name always holds a whole file. One that failed (a
        // full disk) leaves nothing behind.
        const plain = `${stem}.${process.pid}.partial.csv`;
        const partial = `${plain}.gz`;
        const removePartial = () => Promise.all([plain, partial].map((path) => rm(path, { force: true })));
        while (compressing.size >= COMPRESSING) await Promise.race(compressing);
        await db
          .run(`COPY (SELECT ${csvSelectList(columns)} FROM ${tableSource([join(snapshot.dir, parquet.path)])}) TO ${quoteString(plain)} (${csvCopyOptions()})`)
          .catch(async (error: unknown) => {
            await removePartial();
            throw error;
          });
        const compressed = (async () => {
          const described = await gzipFile(plain, partial).catch(async (error: unknown) => {
            await removePartial();
            throw namingPath(partial, error);
          });
          await rm(plain);
          await rename(partial, file);
          await writeWhole(`${stem}.json`, JSON.stringify(described));
          made.set(parquet.sha256, { file, ...described });
          options.onFile?.();
        })();
        compressing.add(compressed);
        void compressed.then(
          () => compressing.delete(compressed),
          () => {},
        );
      }
    }
  }
  await Promise.all(compressing);
  const kept = new Set([...made.values()].flatMap(({ file }) => [file, file.replace(/\.csv\.gz$/, '.json')]));
  for (const name of await readdir(cacheDir)) {
    if (!kept.has(join(cacheDir, name))) await rm(join(cacheDir, name), { force: true });
  }
  return made;
}
