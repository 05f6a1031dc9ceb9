import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Everything a run puts in the system's temporary directory (the tests' own directories, and those
 * of the processes they start) goes into one directory of its own, removed at the end: a run
 * leaves nothing behind, however many data directories its tests made. Both tiers start with it.
 */
export default async function setup() {
  const runDir = await mkdtemp(join(tmpdir(), 'odsnap-test-run-'));
  // Read by os.tmpdir() here, in the test workers and in every process they start, which all begin after this.
  process.env.TMPDIR = runDir;
  return () => rm(runDir, { recursive: true, force: true });
}
