import { describe, expect, it } from 'vitest';
import { fill } from '../../../site/client/texts.ts';
import { en } from '../../../site/i18n/en.ts';
import { pl } from '../../../site/i18n/pl.ts';

describe("the JSON viewer's counts", () => {
  it('say one item, not one items, and count every other number in the plural', () => {
    const { items, nItems } = en.frame.viewer.client;
    expect(fill(items, { count: 1 }, 'en')).toBe('1 item in this file');
    expect(fill(items, { count: 2 }, 'en')).toBe('2 items in this file');
    expect(fill(nItems, { count: 1 }, 'en')).toBe('1 item');
    expect(fill(nItems, { count: 0 }, 'en')).toBe('0 items');
  });

  it('in Polish, put the number after a label, which reads the same for any number', () => {
    const { items, nItems } = pl.frame.viewer.client;
    for (const count of [1, 2, 5, 22]) {
      expect(fill(items, { count }, 'pl')).toBe(`Elementów w tym pliku: ${count}`);
      expect(fill(nItems, { count }, 'pl')).toBe(`elementy: ${count}`);
    }
  });
});
