import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * V8's garbage collector, for code that knows better than its heuristics when garbage piles up.
 * Undefined when the runtime refuses to expose it.
 */
export const collectGarbage = (() => {
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as ((options?: { type: 'minor' | 'major' }) => void) | undefined;
    // A full collection is gc() with no options: Node 20's V8 reads { type: 'major' } as a minor one.
    return gc && ((type: 'minor' | 'major') => (type === 'minor' ? gc({ type }) : gc()));
  } catch {
    return undefined;
  }
})();

const MiB = 1024 * 1024;

/**
 * Keeps the heap near what is live during long work that allocates fast (a crawl parsing its
 * answers, a build rendering millions of rows). V8 lets its old generation grow to several times
 * what is live before a full collection; with gigabytes to spare it does, and a city pull's heap
 * grew to several times what was live, all of it resident. Four times a second, this collects once
 * the heap has grown `slackMiB` past what the last full collection left. Returns the function that
 * stops it.
 */
export function paceHeap(slackMiB = 192): () => void {
  if (!collectGarbage) return () => {};
  let live = getHeapStatistics().used_heap_size;
  const timer = setInterval(() => {
    if (getHeapStatistics().used_heap_size < live + slackMiB * MiB) return;
    collectGarbage('major');
    live = getHeapStatistics().used_heap_size;
  }, 250);
  timer.unref();
  return () => clearInterval(timer);
}
