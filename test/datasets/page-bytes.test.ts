import { describe, expect, it } from 'vitest';
import { offsetPage } from '../../datasets/answers/page/offset-page.ts';
import { offsetPageAround } from '../../datasets/answers/page/serve.ts';

describe('a page spliced from stored renderings', () => {
  const items = [{ id: 'a', name: 'Łódź "centre"' }, { id: 'b', list: [1, 2] }];
  const joined = (values: unknown[]) => Buffer.from(values.map((item) => JSON.stringify(item)).join(','));
  /** The page as the server sends it: the items' JSON between what goes around it. */
  const offsetPageBytes = (items: Buffer, page: Parameters<typeof offsetPageAround>[0]) => {
    const [before, after] = offsetPageAround(page);
    return Buffer.concat([before, items, after]);
  };

  it('has the bytes JSON.stringify gives the same page', () => {
    const page = { limit: 2, offset: 4, total: 9, next: 'http://host/api/public/rcn/transactions?limit=2&offset=6' };
    expect(offsetPageBytes(joined(items), { ...page, count: 2 }).toString()).toBe(JSON.stringify(offsetPage(items, page)));
  });

  it('is an empty page, with its total, when no row is on it', () => {
    const page = { limit: 100, offset: 200, total: 150, next: null };
    expect(offsetPageBytes(joined([]), { ...page, count: 0 }).toString()).toBe(JSON.stringify(offsetPage([], page)));
  });
});
