import { parquetMetadataAsync, type FileMetaData } from 'hyparquet';
import { RemoteFile } from './remote-file.ts';
import type { CatalogueFile } from './scan-plan.ts';

/** The published Parquet files the catalogue lists, each opened once, and fetched a few at a time. */

/** The end of a file fetched first for its footer: small files come whole in one request. */
const FOOTER_GUESS = 16 * 1024;
/** Files fetched at once. */
const PARALLEL = 6;

/** Runs `work` on every item, `PARALLEL` at a time. */
export async function eachAtOnce<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
}

/** A file read by ranges, and its footer (read once). */
export interface PublishedFile {
  readonly file: RemoteFile;
  readonly metadata: Promise<FileMetaData>;
}
export type PublishedFiles = (file: CatalogueFile) => PublishedFile;

/** The files, their URLs resolved against `base` (the catalogue's); a footer that fails is read again next time. */
export function publishedFiles(base: URL): PublishedFiles {
  const files = new Map<string, PublishedFile>();
  return (file) => {
    let found = files.get(file.url);
    if (!found) {
      const remoteFile = new RemoteFile(new URL(file.url, base).href, file.bytes);
      found = { file: remoteFile, metadata: parquetMetadataAsync(remoteFile, { initialFetchSize: FOOTER_GUESS }) };
      found.metadata.catch(() => files.delete(file.url));
      files.set(file.url, found);
    }
    return found;
  };
}
