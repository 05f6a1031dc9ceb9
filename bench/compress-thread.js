// A thread of bench/build-tree.ts's "compression alone": reads the files it is given and makes their
// variants as the build's writer threads do (scripts/static/variants.ts), writing nothing. The
// reading is timed too: 8 µs a file from the disk cache here, about 2 s of a city's 137.
import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { VARIANTS } = await import('../scripts/static/variants.ts');
parentPort.on('message', (paths) => {
  let bytes = 0;
  for (const path of paths) {
    const data = readFileSync(path);
    for (const variant of VARIANTS) bytes += variant.compress(data, 0).length;
  }
  parentPort.postMessage(bytes);
});
