import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browsedSite, skipWithoutChromium, type Visit } from '../fixtures/chromium.ts';
import { pagesOf } from '../fixtures/site-pages.ts';

/**
 * The API docs' tables in real Chromium, over the tiny city's tree built with the site: at a
 * page's width every table fits the column it stands in (none cut at the right, to scroll to), and
 * on a phone, where a row shows as a block of labelled cells, a cell with nothing in it shows no
 * label either, in both languages.
 */

const skip = skipWithoutChromium('test/site/docs-tables.test.ts');

/** Run in the page: the tables of its main part wider than the box they stand in, by how much. */
const tablesWiderThanTheirBox = `[...document.querySelectorAll('main table')]
  .filter((table) => table.getClientRects().length > 0)
  .map((table) => ({ table, box: table.parentElement }))
  .filter(({ table, box }) => table.getBoundingClientRect().width > box.clientWidth + 1)
  .map(({ table, box }) => (table.querySelector('th')?.textContent ?? '') + ': ' + Math.round(table.getBoundingClientRect().width) + ' px in ' + box.clientWidth + ' px')`;

/** Run in the page: the shown cells that are empty but still show their column's name. */
const emptyLabelledCells = `[...document.querySelectorAll('main td')]
  .filter((cell) => cell.getClientRects().length > 0 && cell.textContent.trim() === '')
  .filter((cell) => !['none', 'normal', ''].includes(getComputedStyle(cell, '::before').content))
  .map((cell) => getComputedStyle(cell, '::before').content + ' in the row of ' + (cell.closest('tr').querySelector('th')?.textContent ?? '?'))`;

describe.skipIf(skip)('the API docs’ tables in Chromium', () => {
  let pages: string[];
  let tab: Page;
  let visit: Visit;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    let tree: string;
    ({ tree, tab, visit, close } = await browsedSite('docs-tables'));
    pages = (await pagesOf(tree)).filter((path) => /^(\/pl)?\/docs\//.test(path));
  }, 300_000);

  afterAll(() => close?.());

  it('fit every table into its column at a page’s width, the OpenAPI page’s parameters wrapped', async () => {
    expect(pages).toContain('/docs/openapi/');
    expect(pages).toContain('/pl/docs/openapi/');
    const wide: string[] = [];
    await tab.setViewportSize({ width: 1280, height: 900 });
    for (const path of pages) {
      await visit(path, async (page) => {
        wide.push(...(await page.evaluate<string[]>(tablesWiderThanTheirBox)).map((table) => `${path} ${table}`));
      });
    }
    expect(wide).toEqual([]);
  });

  it('show no label for an empty cell on a phone (a parameter with no limits and no default)', async () => {
    expect(pages).toContain('/docs/citybike/rides/');
    const labelled: string[] = [];
    await tab.setViewportSize({ width: 375, height: 812 });
    try {
      for (const path of pages) {
        await visit(path, async (page) => {
          labelled.push(...(await page.evaluate<string[]>(emptyLabelledCells)).map((cell) => `${path} ${cell}`));
        });
      }
    } finally {
      await tab.setViewportSize({ width: 1280, height: 900 });
    }
    expect(labelled).toEqual([]);
  });
});
