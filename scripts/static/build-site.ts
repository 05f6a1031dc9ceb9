import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { BuildRun } from './build-run.ts';
import { readSiteFile, siteFiles, startSiteBuild, type RunningSiteBuild } from './site.ts';
import type { TreeOutput } from './tree-output.ts';

/**
 * The site step of a build: once the tree holds everything but the site, the site (Astro, see
 * site.ts) is built in a process of its own, its pages reading the tree (their examples link to its
 * real files), and its files are copied into the tree.
 *
 * It runs after the tree's files, not beside them: bundling beside the writing of the tree put
 * Astro's memory on top of the build's at its highest, and on two cores saved no time.
 */

/** Site files served compressed when the client takes it. */
const COMPRESSIBLE = /\.(html|css|js|mjs|svg|json|xml|txt|wasm)$/;

/** Builds the site over the tree written so far and adds its files to the tree; what it leaves in `cacheDir` is deleted when the build ends. */
export async function addSite(
  output: TreeOutput,
  cacheDir: string,
  site: { base: string; tiles?: string },
  run: BuildRun,
  onStep?: (text: string) => void,
): Promise<void> {
  const dir = join(cacheDir, `site-${process.pid}`);
  let build: RunningSiteBuild | undefined;
  run.atEnd(async () => {
    build?.stop();
    await Promise.allSettled([build?.done]);
    await rm(dir, { recursive: true, force: true });
  });
  await output.flush();
  build = startSiteBuild({ outDir: dir, tree: output.dir, base: site.base, tiles: site.tiles });
  const seconds = await build.done;
  const files = await siteFiles(dir);
  for (const path of files) await output.write(path, await readSiteFile(dir, path), { compress: COMPRESSIBLE.test(path) });
  onStep?.(`site: ${files.length} files, built in ${seconds.toFixed(1)} s`);
}
