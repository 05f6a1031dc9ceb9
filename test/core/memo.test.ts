import { describe, expect, it } from 'vitest';
import { Memo } from '../../core/memo.ts';

describe('Memo', () => {
  it('makes a value once per key, undefined included', () => {
    const memo = new Memo<string, number | undefined>(4);
    let made = 0;
    const make = () => (made++, undefined);
    expect([memo.of('a', make), memo.of('a', make)]).toEqual([undefined, undefined]);
    expect(made).toBe(1);
  });

  it('forgets everything once it holds its limit, and only then', () => {
    const memo = new Memo<number, number>(3);
    for (let key = 0; key < 3; key++) memo.remember(key, key);
    memo.remember(2, 20);
    expect([memo.get(0), memo.get(2)]).toEqual([0, 20]);
    memo.remember(3, 3);
    expect([memo.get(0), memo.get(1), memo.get(2), memo.get(3)]).toEqual([undefined, undefined, undefined, 3]);
  });

  it('holds no more than its limit however many keys are asked', () => {
    const memo = new Memo<number, number>(100);
    for (let key = 0; key < 100_000; key++) memo.of(key, () => key);
    let held = 0;
    for (let key = 0; key < 100_000; key++) if (memo.get(key) !== undefined) held++;
    expect(held).toBeLessThanOrEqual(100);
  });
});
