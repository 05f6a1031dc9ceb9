import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { defaultUntil } from '../../datasets/vocabulary/sample.ts';
import { datasets } from '../../datasets/index.ts';
import { generateSample } from '../../scripts/sample/generate.ts';

/**
 * The fixture of the whole suite: the sample city at tiny scale, generated once per run. Tests must
 * not change it. It goes in the run's directory (run-dir.ts, set up before this), removed with it.
 * The unit tier (vitest.unit.config.ts) runs without it.
 */
export default async function setup(project: TestProject) {
  const dataDir = await mkdtemp(join(tmpdir(), 'odsnap-tiny-'));
  await generateSample({ dataDir, datasets, settings: { scale: 'tiny', seed: 1, until: defaultUntil } });
  project.provide('tinyDataDir', dataDir);
}

declare module 'vitest' {
  export interface ProvidedContext {
    tinyDataDir: string;
  }
}
