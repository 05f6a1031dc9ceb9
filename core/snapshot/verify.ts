import { readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { MANIFEST_FILE, readManifest } from './manifest.ts';
import { sha256Of } from './table-writer.ts';

export interface VerifyReport {
  readonly files: number;
  readonly bytes: number;
  /** One line per problem, naming the file. */
  readonly mismatches: string[];
}

/** Re-checks every file of a snapshot against its manifest: presence, size, sha256, and nothing extra. */
export async function verifySnapshot(snapshotDir: string, onFile?: (path: string) => void): Promise<VerifyReport> {
  const manifest = await readManifest(snapshotDir);
  const mismatches: string[] = [];
  const listed = new Set<string>([MANIFEST_FILE]);
  let files = 0,
    bytes = 0;
  for (const [datasetName, dataset] of Object.entries(manifest.datasets)) {
    for (const [tableName, table] of Object.entries(dataset.tables)) {
      const rows = table.files.reduce((sum, f) => sum + f.rows, 0);
      if (rows !== table.rows) mismatches.push(`${datasetName}/${tableName}: files hold ${rows} rows, the table says ${table.rows}`);
      for (const file of table.files) {
        listed.add(file.path);
        onFile?.(file.path);
        const path = join(snapshotDir, file.path);
        const info = await stat(path).catch(() => undefined);
        if (!info) {
          mismatches.push(`${file.path}: missing`);
          continue;
        }
        files++;
        bytes += info.size;
        if (info.size !== file.bytes) mismatches.push(`${file.path}: ${info.size} bytes, the manifest says ${file.bytes}`);
        else if ((await sha256Of(path)) !== file.sha256) mismatches.push(`${file.path}: sha256 differs from the manifest`);
      }
    }
  }
  for (const entry of [...Object.values(manifest.quarantine ?? {}), ...(manifest.changes ? [manifest.changes] : [])]) {
    listed.add(entry.path);
    const path = join(snapshotDir, entry.path);
    const info = await stat(path).catch(() => undefined);
    if (!info) mismatches.push(`${entry.path}: missing`);
    else if (info.size !== entry.bytes || (await sha256Of(path)) !== entry.sha256) mismatches.push(`${entry.path}: differs from the manifest`);
    else [files, bytes] = [files + 1, bytes + info.size];
  }
  for (const path of await filesUnder(snapshotDir)) {
    if (!listed.has(path)) mismatches.push(`${path}: not in the manifest`);
  }
  return { files, bytes, mismatches };
}

async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join('/'));
}
