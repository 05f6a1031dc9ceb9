import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { VARIANTS } from '../../../scripts/static/variants.ts';

const page = (total: number) => {
  const items = Array.from({ length: 100 }, (_, i) => ({ id: `PL.${i}`, street: 'ulica Świętokrzyska', price: 100_000 + i }));
  const ending = `],"pagination":${JSON.stringify({ limit: 100, offset: 0, total, next: total > 100 ? '/api/public/rcn/transactions/offset/100.json' : null })}}`;
  const json = JSON.stringify({
    items,
    pagination: { limit: 100, offset: 0, total, next: total > 100 ? '/api/public/rcn/transactions/offset/100.json' : null },
  });
  expect(json.endsWith(ending)).toBe(true);
  return { data: Buffer.from(json), ending: Buffer.from(ending) };
};
const decode = (suffix: string, packed: Buffer) => (suffix === '.gz' ? gunzipSync(packed) : brotliDecompressSync(packed));

describe.each(VARIANTS.map((variant) => [variant.suffix, variant] as const))('the %s variant', (suffix, variant) => {
  it('decodes to the file, with or without an ending stored as it is', () => {
    const { data, ending } = page(1234);
    expect(decode(suffix, variant.compress(data, ending.length)).equals(data)).toBe(true);
    expect(decode(suffix, variant.compress(data, 0)).equals(data)).toBe(true);
  });

  it('takes a new ending without compressing again, to the same bytes a fresh compression gives', () => {
    const before = page(99);
    const after = page(12_345);
    const old = variant.compress(before.data, before.ending.length);
    const replaced = variant.replaceEnding(old, before.ending, after.data, after.ending.length)!;
    expect(replaced.equals(variant.compress(after.data, after.ending.length))).toBe(true);
    expect(decode(suffix, replaced).equals(after.data)).toBe(true);
  });

  it('refuses to replace the ending of a variant not made with it stored', () => {
    const before = page(99);
    const after = page(100);
    expect(variant.replaceEnding(variant.compress(before.data, 0), before.ending, after.data, after.ending.length)).toBeUndefined();
    const other = Buffer.from('],"pagination":{"total":7}}');
    expect(variant.replaceEnding(variant.compress(before.data, before.ending.length), other, after.data, after.ending.length)).toBeUndefined();
  });
});
