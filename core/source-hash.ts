import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A hash of the TypeScript sources under some directories and files, after `salt`: the key of
 * output those sources shape (rendered files, a serving database), so that changed code never
 * leaves stale output behind.
 */
export async function sourceHash(paths: readonly URL[], salt = ''): Promise<string> {
  const hash = createHash('sha1').update(`${salt}\n`);
  for (const url of paths) {
    const path = fileURLToPath(url);
    if ((await stat(path)).isFile()) {
      hash.update(`${path.split('/').at(-1)}\n`).update(await readFile(path));
      continue;
    }
    const files = (await readdir(path, { recursive: true })).filter((file) => file.endsWith('.ts')).sort();
    for (const file of files) hash.update(`${file}\n`).update(await readFile(join(path, file)));
  }
  return hash.digest('base64url');
}
