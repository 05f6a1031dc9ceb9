import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The static tree's entry point: its snapshot, licence, and every data set, endpoint and file pattern. */
export const INDEX = 'api/public/index.json';

/** The snapshot a static tree (or the directory it is swapped in at) was built from; undefined when there is no tree odsnap can read. */
export function builtSnapshotId(tree: string): string | undefined {
  try {
    const id = (JSON.parse(readFileSync(join(tree, INDEX), 'utf8')) as { snapshot?: { id?: unknown } }).snapshot?.id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
