import { collectGarbage } from '../core/heap.ts';

/**
 * DuckDB results hold native memory (their vectors keep the scanned data alive) that V8 does not
 * see: to V8 a result is a tiny object, so the young-generation collections that free results
 * come rarely, and a busy server ends up holding several times the memory it needs in dead
 * results. A minor collection every few dozen results frees them for a
 * fraction of a millisecond each.
 */
const EVERY = 32;
let results = 0;

/** Call once per DuckDB result the process is done with. */
export function releaseResult(): void {
  if (collectGarbage && ++results % EVERY === 0) collectGarbage('minor');
}
