import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { csvCopyOptions, csvSelectList } from '../../../core/db/csv.ts';
import { quoteString, type Database } from '../../../core/db/duckdb.ts';
import type { Snapshot } from '../../../core/snapshot/read.ts';
import { tableSource } from '../../../core/snapshot/read.ts';
import { sourceHash } from '../../../core/source-hash.ts';
import type { Dataset } from '../../../datasets/vocabulary/dataset.ts';

/**
 * The CSV twin of every Parquet file, gzip-compressed, written by DuckDB in the conventions of
 * core/db/csv.ts. Made once per Parquet file: kept in a cache beside the trees, named by the
 * Parquet file's sha256 and by the code that writes CSV, so a rebuild after a pull converts only
 * the files the pull changed. The tree hard-links the cached files.
 */

export interface CsvFile {
  /** The cached file, to be linked into the tree. */
  readonly file: string;
  readonly bytes: number;
  readonly sha256: string;
}

/** CSV files by the sha256 of the Parquet file they were made from. */
export type CsvFiles = ReadonlyMap<string, CsvFile>;

const formatKey = async () => (await sourceHash([new URL('../../../core/db/csv.ts', import.meta.url), new URL(import.meta.url)])).slice(0, 12);

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Converts every Parquet file of the snapshot's tables that the cache lacks (every one, with
 * `fresh`), one after the other on `db`, and deletes cached files no table has any more.
 */
export async function makeCsvFiles(db: Database, snapshot: Snapshot, datasets: readonly Dataset[], cacheDir: string, options: { fresh?: boolean; signal?: AbortSignal; onFile?: () => void } = {}): Promise<CsvFiles> {
  await mkdir(cacheDir, { recursive: true });
  const key = await formatKey();
  const made = new Map<string, CsvFile>();
  for (const dataset of datasets) {
    for (const table of Object.values(dataset.tables)) {
      const columns = Object.entries(table.columns).map(([name, column]) => ({ name, type: column.sqlType }));
      for (const parquet of snapshot.manifest.datasets[dataset.name]!.tables[table.name]!.files) {
        if (made.has(parquet.sha256)) continue;
        options.signal?.throwIfAborted();
        const stem = join(cacheDir, `${key}-${parquet.sha256}`);
        const file = `${stem}.csv.gz`;
        const known = options.fresh ? undefined : await readFile(`${stem}.json`, 'utf8').then((text) => JSON.parse(text) as Omit<CsvFile, 'file'>, () => undefined);
        if (known) {
          made.set(parquet.sha256, { file, ...known });
          continue;
        }
        // Written aside and renamed: a cached name always holds a whole file.
        const partial = `${stem}.${process.pid}.partial.csv.gz`;
        await db.run(`COPY (SELECT ${csvSelectList(columns)} FROM ${tableSource([join(snapshot.dir, parquet.path)])}) TO ${quoteString(partial)} (${csvCopyOptions(true)})`);
        const described = { bytes: (await stat(partial)).size, sha256: await sha256Of(partial) };
        await rename(partial, file);
        await writeFile(`${stem}.json`, JSON.stringify(described));
        made.set(parquet.sha256, { file, ...described });
        options.onFile?.();
      }
    }
  }
  const kept = new Set([...made.values()].flatMap(({ file }) => [file, file.replace(/\.csv\.gz$/, '.json')]));
  for (const name of await readdir(cacheDir)) {
    if (!kept.has(join(cacheDir, name))) await rm(join(cacheDir, name), { force: true });
  }
  return made;
}
