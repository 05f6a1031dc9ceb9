import { describe, expect, it } from 'vitest';
import type { Representation } from '../../server/http/respond.ts';
import { KeptAnswers } from '../../server/kept-answers.ts';

const answer = (bytes: number): Representation => ({
  status: 200,
  content: Buffer.alloc(bytes),
  etag: '"e"',
  notModified: [],
  headers: [],
});

describe('answers kept ready for the wire', () => {
  it('gives back what was kept for the same snapshot, and nothing for another', () => {
    const kept = new KeptAnswers(1 << 20);
    const one = answer(100);
    kept.set('s1', 'a', one);
    expect(kept.get('s1', 'a')).toBe(one);
    expect(kept.get('s2', 'a')).toBeUndefined();
    expect(kept.get('s1', 'b')).toBeUndefined();
  });

  it('lets every answer go when another snapshot is served', () => {
    const kept = new KeptAnswers(1 << 20);
    kept.set('s1', 'a', answer(100));
    kept.set('s2', 'b', answer(100));
    expect(kept.size.answers).toBe(1);
    expect(kept.get('s1', 'a')).toBeUndefined();
  });

  it('stays within its bytes, letting go of the answer asked for least lately first', () => {
    // Each answer is 1,000 bytes as counted (its body, and its one-letter key at two bytes): 16 fit in 16,000.
    const kept = new KeptAnswers(16_000);
    for (const key of 'abcdefghijklmnop') kept.set('s', key, answer(998));
    expect(kept.size).toEqual({ answers: 16, bytes: 16_000 });
    kept.get('s', 'a');
    kept.set('s', 'q', answer(998));
    expect(kept.size).toEqual({ answers: 16, bytes: 16_000 });
    expect(kept.get('s', 'a')).toBeDefined();
    expect(kept.get('s', 'b')).toBeUndefined();
    expect(kept.get('s', 'c')).toBeDefined();
  });

  it('does not keep an answer bigger than a sixteenth of what it may hold', () => {
    const kept = new KeptAnswers(16_000);
    kept.set('s', 'big', answer(1_500));
    expect(kept.get('s', 'big')).toBeUndefined();
    kept.set('s', 'small', answer(500));
    expect(kept.get('s', 'small')).toBeDefined();
  });

  it('keeps a body of its own, not the shared pool a small Buffer is cut from', () => {
    const kept = new KeptAnswers(1 << 20);
    const pooled = Buffer.from('{"id":"T1"}');
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.length);
    kept.set('s', 'a', { ...answer(0), content: pooled });
    const content = kept.get('s', 'a')!.content;
    expect(content.equals(pooled)).toBe(true);
    expect(content.buffer.byteLength).toBe(content.length);
  });
});
