import { constants, PerformanceObserver } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { paceHeap } from '../../core/heap.ts';

/** Full collections asked for by code (not V8's own), while `work` runs. */
async function forcedFullCollections(work: () => Promise<void>): Promise<number> {
  let forced = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const { kind, flags } = (entry as PerformanceEntry & { detail: { kind: number; flags: number } }).detail;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR && flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) forced++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  await work();
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  return forced;
}

/** Keeps about `mib` of objects alive until the next batch replaces them, then waits for the pacer to look. */
async function churn(mib: number): Promise<void> {
  let kept: string[][] = [];
  for (let round = 0; round < 6; round++) {
    kept = Array.from({ length: mib * 64 }, (_, i) => Array.from({ length: 16 }, (_, j) => `${round}-${i}-${j}`.padEnd(24, '.')));
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  expect(kept.length).toBeGreaterThan(0);
}

describe('paceHeap', () => {
  it('collects the whole heap once it has grown past the slack', async () => {
    const stop = paceHeap(16);
    try {
      expect(await forcedFullCollections(() => churn(48))).toBeGreaterThan(0);
    } finally {
      stop();
    }
  });

  it('asks for nothing once stopped', async () => {
    paceHeap(16)();
    expect(await forcedFullCollections(() => churn(48))).toBe(0);
  });
});
