import { describe, expect, it } from 'vitest';
import type { ViewState } from '../../../site/client/table-view.ts';
import { viewOfQuery, viewQuery } from '../../../site/client/view-url.ts';

/** A table page's view in its address: written and read back whole, odd values and all. */

const columns = ['price', 'we"ird', 'day', 'name'].map((name) => ({ name, type: 'VARCHAR' }));

describe('a view in the URL', () => {
  it('reads back every kind of filter, the sort and the page as they were', () => {
    const view: ViewState = {
      filters: [
        { column: 'we"ird', kind: 'equals', value: "O'Brien & co = 100%" },
        { column: 'price', kind: 'range', from: '10.5', to: '20' },
        { column: 'day', kind: 'range', to: '2024-05-01' },
        { column: 'name', kind: 'contains', text: 'ą ?#' },
        { column: 'day', kind: 'not-null' },
        { column: 'name', kind: 'null' },
      ],
      sort: { column: 'price', descending: true },
      page: 3,
    };
    const query = viewQuery(view);
    expect(query).toMatch(/^sort=-price&eq\.we%22ird=/);
    expect(query).toContain('page=4');
    expect(viewOfQuery(`?${query}`, columns)).toEqual(view);
  });

  it('is empty for the whole table unsorted, and drops what the table does not have', () => {
    expect(viewQuery({ filters: [], page: 0 })).toBe('');
    expect(viewOfQuery('', columns)).toEqual({ filters: [], page: 0 });
    expect(viewOfQuery('?sort=nope&eq.nope=1&page=x&junk=1', columns)).toEqual({ filters: [], page: 0 });
  });
});
