import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NO_TILES } from '../../core/base-map.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const astroCli = join(root, 'node_modules', 'astro', 'astro.js');
/**
 * Astro's heap, at most. Left to V8's default (a quarter of the machine's memory) it grew to three
 * times what it held live before collecting, and the site's build was most of the build's peak
 * memory; what it holds live does not grow with the data (the pages read thinned figures).
 */
const SITE_HEAP_MIB = 512;

/** Whether this installation can build the site: its sources and Astro are here. */
export const canBuildSite = () => existsSync(join(root, 'astro.config.mjs')) && existsSync(astroCli);

/**
 * Whether a file Astro wrote is part of the site. Its server code is not: every .mjs it writes
 * (its manifest, which holds this machine's paths, chunks, the content layer's modules); the
 * site's own scripts are .js under _astro/. Nor is anything hidden.
 */
const isSite = (path: string) => !path.endsWith('.mjs') && !path.split(sep).some((segment) => segment.startsWith('.'));

export interface SiteBuild {
  /** Where Astro writes; emptied first. */
  readonly outDir: string;
  /** The static tree the docs' examples link into (read from its index and listings). */
  readonly tree?: string;
  /** What the tree's links start with: '' or e.g. https://cdn.example.org/odsnap. The site is served under the same path. */
  readonly base?: string;
  /** The maps' raster tiles, a URL template or none (see core/base-map.ts). */
  readonly tiles?: string;
}

/** A site build under way in its own process. */
export interface RunningSiteBuild {
  /** Settles when it ends: the seconds it took. */
  readonly done: Promise<number>;
  /** Ends it now, if it still runs. */
  stop(): void;
}

/**
 * Builds the site (astro.config.mjs, sources in site/) with the Astro CLI in a child process, so
 * Astro's Vite stays out of the calling process.
 */
export function startSiteBuild(options: SiteBuild): RunningSiteBuild {
  const started = performance.now();
  const base = options.base ? new URL(options.base, 'http://relative.invalid') : undefined;
  const env: Record<string, string> = {
    ASTRO_TELEMETRY_DISABLED: '1',
    ...(options.tree ? { ODSNAP_SITE_TREE: options.tree } : {}),
    // Always set, so a setting left in the calling process's environment does not choose for it.
    ODSNAP_SITE_TILES: options.tiles ?? NO_TILES,
    ...(base ? { ODSNAP_SITE_BASE: `${base.pathname.replace(/\/+$/, '')}/` } : {}),
    ...(base && base.origin !== 'http://relative.invalid' ? { ODSNAP_SITE_URL: base.origin } : {}),
  };
  let child: ChildProcess | undefined;
  let stopped = false;
  const done = (async () => {
    await rm(options.outDir, { recursive: true, force: true });
    if (stopped) throw new Error('the site build was stopped');
    const output: string[] = [];
    // Astro writes the site's server code into .astro/ of its working directory (under odsnap's
    // root, where it finds odsnap's packages) and at the end copies all it finds there into the
    // site. Run from the root itself, every build shared that folder: two at once took each other's
    // files, and one stopped half way left its manifest for the next to publish. So each build
    // runs in a working directory of its own.
    await mkdir(join(root, '.cache'), { recursive: true });
    const workDir = await mkdtemp(join(root, '.cache', 'astro-'));
    try {
      child = spawn(process.execPath, [`--max-old-space-size=${SITE_HEAP_MIB}`, astroCli, 'build', '--root', root, '--outDir', resolve(options.outDir)], {
        cwd: workDir,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.on('data', (chunk) => output.push(String(chunk)));
      child.stderr!.on('data', (chunk) => output.push(String(chunk)));
      const code = await new Promise<number | null>((done) => child!.on('close', done));
      if (code !== 0) throw new Error(`astro build failed (exit ${code}):\n${output.join('').slice(-4000)}`);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
    return (performance.now() - started) / 1000;
  })();
  // Awaited by the caller; until then a failure must not count as unhandled.
  done.catch(() => {});
  return {
    done,
    stop: () => {
      stopped = true;
      child?.kill();
    },
  };
}

/** Every file a site build wrote, as paths relative to its directory. */
export async function siteFiles(outDir: string): Promise<string[]> {
  const entries = await readdir(outDir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(outDir, join(entry.parentPath, entry.name)))
    .filter(isSite)
    .sort();
}

export const readSiteFile = (outDir: string, path: string) => readFile(join(outDir, path));
