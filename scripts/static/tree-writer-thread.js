// A writer thread of a static build (see tree-writers.ts). Threads start without the tsx loader
// the odsnap command registers, so this one registers it before loading TypeScript.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { doFileJobs } = await import('./tree-writers.ts');
const madeDirs = new Set();
parentPort.on('message', ({ id, jobs }) => {
  try {
    parentPort.postMessage({ id, counts: doFileJobs(jobs, madeDirs) });
  } catch (error) {
    parentPort.postMessage({ id, error: { message: error.message, code: error.code } });
  }
});
