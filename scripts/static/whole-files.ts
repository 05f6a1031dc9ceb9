import { closeSync, openSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';

/**
 * The error of a failed write into `path`, naming it: node's names no file when the write itself
 * fails ("ENOSPC: no space left on device, write"), so a build that filled the disk said not where.
 */
export function namingPath(path: string, error: unknown): unknown {
  // node quotes the paths it names.
  if (!(error instanceof Error) || /'[^']+'/.test(error.message)) return error;
  return Object.assign(new Error(`${error.message} '${path}'`, { cause: error }), { code: (error as NodeJS.ErrnoException).code });
}

/**
 * Writes a file whole or not at all: one cut short (a full disk) is removed, not left for a later
 * build to read. `data` may be a function that writes it part by part to the file it is given.
 */
export async function writeWhole(path: string, data: string | Uint8Array | ((fd: number) => void)): Promise<void> {
  try {
    if (typeof data !== 'function') await writeFile(path, data);
    else {
      const fd = openSync(path, 'w');
      try {
        data(fd);
      } finally {
        closeSync(fd);
      }
    }
  } catch (error) {
    await rm(path, { force: true });
    throw namingPath(path, error);
  }
}
