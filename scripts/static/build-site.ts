import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { BuildRun } from './build-run.ts';
import { readSiteFile, siteFiles, startSiteBuild, treeIsReady, type RunningSiteBuild } from './site.ts';
import type { TreeOutput } from './tree-output.ts';

/**
 * The site step of a build: the site (Astro, see site.ts) is bundled in a process of its own
 * while the tree is written, its pages made once the tree can be read (their examples link to its
 * real files), then copied into the tree.
 */

/** Site files served compressed when the client takes it. */
const COMPRESSIBLE = /\.(html|css|js|mjs|svg|json|xml|txt|wasm)$/;

export interface SiteUnderWay {
  readonly dir: string;
  /** The file that tells the site build the tree is ready. */
  readonly ready: string;
  readonly build: RunningSiteBuild;
}

/** Starts the site build when `site.build` is set; what it leaves in `cacheDir` is deleted when the build ends. */
export async function startSite(
  cacheDir: string,
  output: TreeOutput,
  site: { build?: boolean; base: string; tiles?: string },
  run: BuildRun,
): Promise<SiteUnderWay | undefined> {
  const dir = join(cacheDir, `site-${process.pid}`);
  const ready = `${dir}.ready`;
  let build: RunningSiteBuild | undefined;
  run.atEnd(async () => {
    build?.stop();
    await Promise.allSettled([build?.done]);
    await rm(dir, { recursive: true, force: true });
    await rm(ready, { force: true });
  });
  await rm(ready, { force: true });
  if (!site.build) return undefined;
  build = startSiteBuild({ outDir: dir, tree: output.dir, base: site.base, ready, tiles: site.tiles });
  return { dir, ready, build };
}

/** Lets the site read the tree written so far, waits for it, and adds its files to the tree. */
export async function addSite(output: TreeOutput, site: SiteUnderWay, onStep?: (text: string) => void): Promise<void> {
  await output.flush();
  await treeIsReady(site.ready);
  const seconds = await site.build.done;
  const files = await siteFiles(site.dir);
  for (const path of files) await output.write(path, await readSiteFile(site.dir, path), { compress: COMPRESSIBLE.test(path) });
  onStep?.(`site: ${files.length} files, built beside the tree in ${seconds.toFixed(1)} s`);
}
