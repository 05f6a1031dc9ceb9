import { readManifest } from '../core/snapshot/manifest.ts';
import type { Snapshot } from '../core/snapshot/read.ts';
import type { Dataset } from '../datasets/vocabulary/dataset.ts';
import { buildServeDatabase, type BuilderReply } from './serve-database.ts';

/**
 * Builds a snapshot's serving database (see serve-database.ts) in a process of its own, so that
 * what the build takes (most of it the renderings, in JavaScript) is given back to the system when
 * it ends, and never counts against the server. Arguments: the snapshot's directory, id and cache
 * directory, and the data sets as JSON: their names and the modules that declare them.
 */

const [dir, id, cacheDir, declared] = process.argv.slice(2) as [string, string, string, string];
const reply = (message: BuilderReply) => new Promise<void>((resolve) => process.send!(message, () => resolve()));
// The server going away takes its builder with it; the half-built file is removed by the next build (removeAbandoned).
process.on('disconnect', () => process.exit(1));

async function load({ name, module }: { name: string; module: string }): Promise<Dataset> {
  const exported = Object.values(await import(module)) as Partial<Dataset>[];
  const dataset = exported.find((value) => value?.name === name && value.module === module && Array.isArray(value.endpoints));
  if (!dataset) throw new Error(`${module} exports no data set named "${name}"`);
  return dataset as Dataset;
}

try {
  const datasets = await Promise.all((JSON.parse(declared) as { name: string; module: string }[]).map(load));
  const snapshot: Snapshot = { id, dir, cacheDir, manifest: await readManifest(dir) };
  const path = await buildServeDatabase(snapshot, datasets);
  await reply({ path, peakKiB: process.resourceUsage().maxRSS });
} catch (error) {
  await reply({ failed: (error as Error).message });
}
process.disconnect();
