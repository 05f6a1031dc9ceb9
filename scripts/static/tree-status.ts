import { readMirrorStatus } from '../../core/mirror-status.ts';
import { STATUS_FILE } from '../../core/published-tree.ts';
import type { Manifest } from '../../core/snapshot/manifest.ts';
import { statusDocument, statusRecordedAt } from '../../core/status-document.ts';
import type { TreeOutput } from './tree-output.ts';

/**
 * `/api/public/status.json`: how fresh the tree's data is, the document `odsnap serve` answers at
 * /api/public/status, from the snapshot built and the mirror's record as the build found it. Its
 * ages and lags are as of that record (or of the snapshot, with no mirror), not of the build's
 * clock: a rebuild with nothing new then writes the same bytes, which the tree output leaves
 * alone, and a mirror's new record rewrites this file and no other.
 */
export async function writeStatus(output: TreeOutput, { dataDir, manifest }: { dataDir: string; manifest: Manifest }): Promise<void> {
  const mirror = await readMirrorStatus(dataDir);
  const document = statusDocument(manifest, mirror, statusRecordedAt(manifest, mirror));
  await output.write(STATUS_FILE, JSON.stringify(document, null, 2));
}
