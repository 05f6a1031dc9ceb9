import { describe, expect, it } from 'vitest';
import { envelopeFor } from '../../../../datasets/answers/envelope.ts';
import { offsetPage, offsetPageAround } from '../../../../datasets/answers/page/offset-page.ts';
import { renderContext } from '../../../../datasets/vocabulary/render.ts';
import { stringify } from '../../../../datasets/vocabulary/written.ts';

describe('a page spliced from stored renderings', () => {
  const items = [
    { id: 'a', name: 'Łódź "centre"' },
    { id: 'b', list: [1, 2] },
  ];
  const joined = (values: unknown[]) => Buffer.from(values.map((item) => JSON.stringify(item)).join(','));
  /** The page as the server sends it: the items' JSON between what goes around it. */
  const offsetPageBytes = (items: Buffer, page: Parameters<typeof offsetPageAround>[0], envelope?: Parameters<typeof offsetPageAround>[1]) => {
    const [before, after] = offsetPageAround(page, envelope);
    return Buffer.concat([Buffer.from(before), items, Buffer.from(after)]);
  };

  it('has the bytes JSON.stringify gives the same page', () => {
    const page = { limit: 2, offset: 4, total: 9, next: 'http://host/api/public/rcn/transactions?limit=2&offset=6' };
    expect(offsetPageBytes(joined(items), { ...page, count: 2 }).toString()).toBe(JSON.stringify(offsetPage(items, page)));
  });

  it('is an empty page, with its total, when no row is on it', () => {
    const page = { limit: 100, offset: 200, total: 150, next: null };
    expect(offsetPageBytes(joined([]), { ...page, count: 0 }).toString()).toBe(JSON.stringify(offsetPage([], page)));
  });

  it('is arranged as its upstream writes its envelope: items after its pagination, its own keys as written or from the page', () => {
    const context = renderContext({ baseUrl: 'http://mirror.test' });
    // As a pull learns it: one envelope as written, a constant key and one that follows the page count.
    const envelope = envelopeFor(
      {
        template: {
          text: '{"meta":{"licence":"{base_url}/licence","v":1.50},"pagination":{"total":null,"next":null,"offset":null,"limit":null,"count":null},"pages":2,"items":[]}',
          derived: { pages: 'pages' },
        },
      },
      context,
    );
    const page = { limit: 2, offset: 4, total: 9, next: 'http://mirror.test/api/public/rcn/transactions?limit=2&offset=6' };
    const text = offsetPageBytes(joined(items), { ...page, count: 2 }, envelope).toString();
    expect(text).toBe(stringify(offsetPage(items, page, envelope)));
    expect(text).toBe(
      '{"meta":{"licence":"http://mirror.test/licence","v":1.50},"pagination":{"total":9,"next":"http://mirror.test/api/public/rcn/transactions?limit=2&offset=6","offset":4,"limit":2,"count":2},"pages":5,' +
        `"items":[${joined(items)}]}`,
    );
  });
});
