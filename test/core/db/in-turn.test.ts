import { describe, expect, it } from 'vitest';
import { inTurn } from '../../../core/db/duckdb.ts';

describe('work started in turn', () => {
  it('runs one piece after another, each promise given at once, a failure seen only where it is awaited', async () => {
    const running: string[] = [];
    let inFlight = 0;
    const started = inTurn(['a', 'b', 'a', 'c'], async (key) => {
      inFlight++;
      expect(inFlight).toBe(1);
      running.push(key);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      if (key === 'b') throw new Error('b failed');
      return key.toUpperCase();
    });
    expect([...started.keys()]).toEqual(['a', 'b', 'c']);
    await expect(started.get('c')).resolves.toBe('C');
    await expect(started.get('b')).rejects.toThrow('b failed');
    await expect(started.get('a')).resolves.toBe('A');
    expect(running).toEqual(['a', 'b', 'c']);
  });

  it('begins no more work once its signal aborts', async () => {
    const stop = new AbortController();
    const begun: number[] = [];
    const started = inTurn(
      [1, 2, 3],
      async (n) => {
        begun.push(n);
        if (n === 1) stop.abort();
        return n;
      },
      stop.signal,
    );
    await Promise.allSettled(started.values());
    expect(begun).toEqual([1]);
    await expect(started.get(1)).resolves.toBe(1);
    await expect(started.get(3)).rejects.toThrow();
  });
});
