// The thread a command's static build runs on (see build-on-thread.ts). Threads start without the
// tsx loader the odsnap command registers, so this one registers it before loading TypeScript.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const [{ buildStatic }, { datasets }] = await Promise.all([import('./build-static.ts'), import('../../datasets/index.ts')]);
// A build reports each of its files: passed on at most ten times a second, the newest.
let progress;
const timer = setInterval(() => {
  if (progress) parentPort.postMessage({ progress });
  progress = undefined;
}, 100);
try {
  const result = await buildStatic({
    ...workerData,
    datasets,
    onProgress: (event) => (progress = event),
    onStep: (step) => parentPort.postMessage({ step }),
  });
  parentPort.postMessage({ result });
} catch (error) {
  parentPort.postMessage({ error: error instanceof Error ? error.message : String(error), code: error?.code });
} finally {
  clearInterval(timer);
}
