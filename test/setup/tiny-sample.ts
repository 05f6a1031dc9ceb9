import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { defaultUntil } from '../../datasets/vocabulary/sample.ts';
import { datasets } from '../../datasets/index.ts';
import { generateSample } from '../../scripts/sample/generate.ts';

/**
 * The fixture of the whole suite: the sample city at tiny scale, generated once per run. Tests must
 * not change it. Everything the run puts in the system's temporary directory (the tests' own
 * directories, and those of the processes they start) goes into one directory of its own, removed
 * at the end: a run leaves nothing behind, however many data directories its tests made.
 */
export default async function setup(project: TestProject) {
  const runDir = await mkdtemp(join(tmpdir(), 'odsnap-test-run-'));
  // Read by os.tmpdir() in the test workers and every process they start, which all begin after this.
  process.env.TMPDIR = runDir;
  const dataDir = await mkdtemp(join(runDir, 'odsnap-tiny-'));
  await generateSample({ dataDir, datasets, settings: { scale: 'tiny', seed: 1, until: defaultUntil } });
  project.provide('tinyDataDir', dataDir);
  return () => rm(runDir, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    tinyDataDir: string;
  }
}
