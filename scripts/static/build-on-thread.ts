import { lstat } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import type { BuildOptions, BuildResult } from './build-static.ts';

/** A build's options but its data sets: the thread builds every data set of this odsnap. */
export type ThreadBuildOptions = Omit<BuildOptions, 'datasets'>;

/**
 * Young generation of the build's thread, in MiB. A build allocates fast and keeps little (rows
 * read, rendered and serialized for half a million files), and with V8's default young generation
 * it spends much of its time collecting it: a larger one makes a full build faster and uses less
 * CPU for no more memory (measured in docs/performance.md). Only a thread can be given its own
 * size; the main thread's is set by a node flag when the process starts.
 */
const YOUNG_GENERATION_MIB = 192;

/** `buildStatic` with every data set, run on a thread with a young generation sized for it. */
export function buildStaticOnThread({ onProgress, onStep, ...options }: ThreadBuildOptions): Promise<BuildResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./build-thread.js', import.meta.url), {
      workerData: options,
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MIB },
    });
    let settled = false;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      done();
    };
    worker.on('message', (message: { progress?: { endpoint: string; files: number }; step?: string; result?: BuildResult; error?: string; code?: string }) => {
      if (message.progress) onProgress?.(message.progress);
      if (message.step !== undefined) onStep?.(message.step);
      // Ended: the thread is stopped rather than left to wind down, which nothing would wait for.
      if (message.result) settle(() => void worker.terminate().then(() => resolve(message.result!)));
      if (message.error !== undefined)
        settle(() => void worker.terminate().then(() => reject(Object.assign(new Error(message.error), { code: message.code }))));
    });
    worker.on('error', (error) => settle(() => reject(error)));
    worker.on('exit', (code) => settle(() => reject(new Error(`the build's thread stopped (exit code ${code})`))));
  });
}

/**
 * The commands' build. On a thread when it renders every file (`--full`, or no tree at `out`
 * yet), where collecting garbage is much of the work; here otherwise: a rebuild after a pull
 * renders a few thousand files, too few for the collector to matter, and a thread would only
 * make it start later, loading odsnap's modules again.
 */
export async function buildStaticForCommand(options: ThreadBuildOptions): Promise<BuildResult> {
  const rendersEverything = options.full || !(await lstat(options.out).catch(() => undefined));
  if (rendersEverything) return buildStaticOnThread(options);
  const [{ buildStatic }, { datasets }] = await Promise.all([import('./build-static.ts'), import('../../datasets/index.ts')]);
  return buildStatic({ ...options, datasets });
}
