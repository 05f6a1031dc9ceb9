import { mkdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE, columnStatisticsPath, tableCataloguePath } from '../../core/published-tree.ts';
import { datasets } from '../../datasets/index.ts';
import { buildStatic } from '../../scripts/static/build-static.ts';
import { readSiteFile, siteFiles, startSiteBuild } from '../../scripts/static/site.ts';
import { staticTree } from '../../server/static-tree.ts';
import { launchChromium, skipWithoutChromium, watchedTab } from '../fixtures/chromium.ts';
import type { TestServer } from '../fixtures/server.ts';
import { startTestServer } from '../fixtures/server.ts';
import { afterView, drawnRowsMatch, rowsOf, shownView, totalOf, treeDuckDB, viewShown } from '../fixtures/table-pages.ts';
import { tempDir, tinyDataDir } from '../fixtures/tiny.ts';

/**
 * A table's page in real Chromium over the tiny city's tree: the rows it shows, sorted, filtered,
 * faceted and paged, are those Node's DuckDB gives for the SQL it shows over the same Parquet; its
 * address brings the view back; its downloads hold the view's rows; both languages; a phone.
 */

const skip = skipWithoutChromium('test/site/table-pages.test.ts');

describe.skipIf(skip)('the table pages in Chromium', () => {
  let tree: string;
  let site: TestServer;
  let browser: Browser;
  let tab: Page;
  let problems: string[];
  let duckdb: DuckDBConnection;
  /** The paths the tab asked for since the last page was opened. */
  const requested: string[] = [];

  beforeAll(async () => {
    const dir = await tempDir('table-pages');
    const out = join(dir, 'dist');
    // The tree with its column statistics, but for one table's, as a tree built before them lacks
    // them all; then the site over it, which asks for them only where they are.
    await buildStatic({ dataDir: tinyDataDir(), out, datasets, site: false });
    await rm(join(await realpath(out), columnStatisticsPath('rcn', 'transactions')));
    const siteDir = join(dir, 'site');
    await startSiteBuild({ outDir: siteDir, tree: await realpath(out) }).done;
    for (const path of await siteFiles(siteDir)) {
      await mkdir(dirname(join(out, path)), { recursive: true });
      await writeFile(join(out, path), await readSiteFile(siteDir, path));
    }
    tree = await realpath(out);
    site = await startTestServer({ tree: staticTree(tree) });
    browser = await launchChromium();
    ({ tab, problems } = await watchedTab(browser, { acceptDownloads: true }));
    tab.on('request', (request) => requested.push(new URL(request.url()).pathname));
    duckdb = await treeDuckDB(tree);
  }, 400_000);

  afterAll(async () => {
    duckdb?.closeSync();
    await browser?.close();
    await site?.close();
  });

  async function open(path: string): Promise<void> {
    problems.length = 0;
    requested.length = 0;
    const response = await tab.goto(site.url + path);
    expect(response?.status(), path).toBe(200);
    await shownView(tab);
  }

  /** The page's view checked against DuckDB: its total, and every row drawn at its place; the rows DuckDB gives. */
  async function sameAsDuckDB(): Promise<string[][]> {
    const shown = await viewShown(tab);
    expect(shown.error).toBeNull();
    const expected = await rowsOf(duckdb, shown.sql);
    expect(shown.total, shown.sql).toBe(await totalOf(duckdb, shown.sql));
    expect(drawnRowsMatch(shown.rows, expected), shown.sql).toBeGreaterThan(Math.min(10, expected.length) - 1);
    return expected;
  }

  const catalogue = async () =>
    JSON.parse(await readFile(join(tree, 'downloads/catalogue.json'), 'utf8')) as { tables: { sqlName: string; rows: number; files: { rows: number }[] }[] };

  it('shows the rows of the largest table and of a small one, as DuckDB gives them over the same files, and pages through the largest', async () => {
    const tables = (await catalogue()).tables;
    const largest = [...tables].sort((a, b) => b.rows - a.rows)[0]!;
    expect(largest.sqlName).toBe('air_quality_readings');
    await open('/datasets/air-quality/readings/');
    expect(await tab.textContent('[data-explorer-sql]')).toBe('SELECT * FROM "air_quality_readings" LIMIT 500 OFFSET 0');
    // The first view reads its table's own catalogue, not the whole one of every table's files.
    expect(requested).toContain(`/${tableCataloguePath('air-quality', 'readings')}`);
    expect(requested).not.toContain(`/${CATALOGUE}`);
    // Preloaded by the page as its script fetches it (a preload that did not match would be fetched twice).
    const own = `/${tableCataloguePath('air-quality', 'readings')}`;
    expect(await tab.getAttribute('link[rel=preload][as=fetch]', 'href')).toBe(own);
    expect(requested.filter((path) => path === own)).toHaveLength(1);
    await sameAsDuckDB();
    expect((await viewShown(tab)).total).toBe(largest.rows);
    // The next page, and the page across the first file's end: rows of two files.
    await afterView(tab, () => tab.click('[data-explorer-page="next"]'));
    expect(new URL(tab.url()).searchParams.get('page')).toBe('2');
    await sameAsDuckDB();
    const across = Math.floor(largest.files[0]!.rows / 500);
    await open(`/datasets/air-quality/readings/?page=${across + 1}`);
    expect((await viewShown(tab)).sql).toMatch(new RegExp(` OFFSET ${across * 500}$`));
    // Scrolled to its end, the grid draws the page's last rows.
    await tab.locator('[data-explorer-grid]').evaluate((grid) => grid.scrollTo(0, grid.scrollHeight));
    await tab.waitForFunction(`document.querySelector('.explorer-body [role=row][data-row="499"]') !== null`);
    await sameAsDuckDB();
    // The whole table sorted, the latest first: its row groups' statistics bound what is read.
    await open('/datasets/air-quality/readings/?sort=-read_at&page=2');
    expect((await viewShown(tab)).sql).toMatch(/ORDER BY "read_at" DESC NULLS LAST, "station_id", "sensor_code" LIMIT 500 OFFSET 500$/);
    await sameAsDuckDB();
    // A sorted view is DuckDB's, which is given the table's own catalogue too.
    expect(requested).not.toContain(`/${CATALOGUE}`);
    await open('/datasets/air-quality/readings/?sort=value');
    await sameAsDuckDB();
    await open('/datasets/citybike/zones/');
    const zones = await sameAsDuckDB();
    expect(zones).toHaveLength(13);
    expect(problems).toEqual([]);
  });

  it('sorts, filters, facets and pages as DuckDB does over the SQL it shows, and its address brings the view back', async () => {
    await open('/datasets/rcn/transactions/');
    // Descending by price: the second click on its header.
    await afterView(tab, () => tab.click('[data-sort="gross_price"]'));
    await afterView(tab, () => tab.click('[data-sort="gross_price"]'));
    expect(new URL(tab.url()).searchParams.get('sort')).toBe('-gross_price');
    expect(await tab.getAttribute('[data-column="gross_price"]', 'aria-sort')).toBe('descending');
    const sorted = await sameAsDuckDB();
    // A range filter, from the form.
    await tab.selectOption('[data-filter-column]', 'gross_price');
    await tab.selectOption('[data-filter-kind]', 'range');
    await tab.fill('[data-filter-from]', '100000');
    await afterView(tab, () => tab.click('[data-explorer-filter] button[type=submit]'));
    const filtered = await sameAsDuckDB();
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.length).toBeLessThan(sorted.length);
    // A facet: the market types among those rows; a click filters by the first.
    await tab.selectOption('[data-facet-column]', 'market_type_value');
    await tab.click('[data-explorer-facet] button[type=submit]');
    const first = tab.locator('[data-facet-values] button').first();
    await first.waitFor();
    const [value, counted] = (await first.evaluate((button) => [button.getAttribute('data-facet-value'), button.textContent])) as [string, string];
    await afterView(tab, () => first.click());
    const faceted = await sameAsDuckDB();
    expect(counted).toContain(`(${faceted.length})`);
    expect((await viewShown(tab)).sql).toContain(`"market_type_value" = '${value}'`);
    expect(await tab.locator('[data-explorer-filters] li').count()).toBe(2);

    // The address alone, in a new tab: the same view.
    const address = tab.url();
    const sql = (await viewShown(tab)).sql;
    const again = await browser.newPage();
    await again.goto(address);
    await shownView(again);
    expect((await viewShown(again)).sql).toBe(sql);
    expect([...(await viewShown(again)).rows.values()]).toEqual([...(await viewShown(tab)).rows.values()]);
    await again.close();

    // A filter removed; a sorted view paged: the second page of a counter's readings by value, ties in the order of the key.
    await afterView(tab, () => tab.click('[data-remove-filter="1"]'));
    expect(await sameAsDuckDB()).toEqual(filtered);
    await open('/datasets/bike-counter/readings/?sort=-value&from.read_at=2024-01-01&page=2');
    expect((await viewShown(tab)).sql).toMatch(/ORDER BY "value" DESC NULLS LAST, "counter_id", "read_at" LIMIT 500 OFFSET 500$/);
    await sameAsDuckDB();
    expect(problems).toEqual([]);
  });

  it('downloads the view, every row of it, as CSV, JSON and Parquet', async () => {
    await open('/datasets/rcn/transactions/?sort=gross_price&eq.market_type_value=rynekWtorny');
    const shown = await viewShown(tab);
    const view = shown.sql.replace(/ LIMIT \d+ OFFSET \d+$/, '');
    const ids = (await rowsOf(duckdb, `SELECT transaction_gml_id FROM (${view})`)).map(([id]) => id);
    expect(ids.length).toBe(shown.total);
    for (const kind of ['csv', 'json', 'parquet']) {
      const [download] = await Promise.all([tab.waitForEvent('download'), tab.click(`[data-explorer-download="${kind}"]`)]);
      expect(download.suggestedFilename()).toBe(`rcn_transactions.${kind}`);
      const file = (await download.path())!;
      const reader = kind === 'json' ? `read_json_auto('${file}')` : kind === 'csv' ? `read_csv('${file}')` : `read_parquet('${file}')`;
      expect(
        (await rowsOf(duckdb, `SELECT transaction_gml_id FROM ${reader}`)).map(([id]) => id),
        kind,
      ).toEqual(ids);
    }
    expect(problems).toEqual([]);
  });

  it('draws a wide table’s rows of the columns in sight first, then reads the others into them', async () => {
    const page = await browser.newPage();
    try {
      // The first row drawn: which of its cells were still to be read.
      await page.addInitScript(`new MutationObserver((_, observer) => {
        const row = document.querySelector('.explorer-body [role=row]');
        if (!row) return;
        window.firstDrawn = [...row.querySelectorAll('[role=cell]:not(.explorer-record)')].map((cell) => cell.classList.contains('pending'));
        observer.disconnect();
      }).observe(document, { childList: true, subtree: true })`);
      await page.goto(`${site.url}/datasets/rcn/properties/`);
      await shownView(page);
      const firstDrawn = (await page.evaluate('window.firstDrawn')) as boolean[];
      const inSight = (await page.evaluate(
        `(() => { const grid = document.querySelector('[data-explorer-grid]'); return [...grid.querySelectorAll('[role=columnheader][data-column]')].filter((cell) => cell.offsetLeft < grid.clientWidth).length; })()`,
      )) as number;
      const columns = (await catalogue()).tables.find((table) => table.sqlName === 'rcn_properties')!;
      expect(inSight).toBeGreaterThan(2);
      expect(firstDrawn).toEqual(Array.from({ length: firstDrawn.length }, (_, i) => i >= inSight));
      expect(firstDrawn.length).toBe((columns as unknown as { columns: unknown[] }).columns.length);
      // Then every column, as DuckDB gives it.
      expect(await page.locator('.explorer-body .pending').count()).toBe(0);
      const shown = await viewShown(page);
      expect(drawnRowsMatch(shown.rows, await rowsOf(duckdb, shown.sql))).toBeGreaterThan(9);
    } finally {
      await page.close();
    }
  });

  it('links a row to its record, and the view’s SQL into the query page', async () => {
    await open('/datasets/citybike/zones/');
    const href = (await tab.locator('[data-explorer-record]').first().getAttribute('href'))!;
    const record = new URL(href, site.url).searchParams.get('url')!;
    expect((await site.fetch(record)).status).toBe(200);
    await tab.click('[data-explorer-open-sql]');
    await tab.waitForURL(/\/query\/\?sql=/);
    expect(await tab.inputValue('[data-sql-text]')).toBe('SELECT * FROM "citybike_zones" LIMIT 500 OFFSET 0');
    expect(problems).toEqual([]);
  });

  it('shows the column statistics above their columns, where the tree has them', async () => {
    const statistics = JSON.parse(await readFile(join(tree, columnStatisticsPath('citybike', 'zones')), 'utf8')) as { columns: { name: string }[] };
    await open('/pl/datasets/citybike/zones/');
    const charted = await tab.locator('[data-column]:has([data-column-chart])').evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-column')));
    expect(charted).toEqual(statistics.columns.map((column) => column.name));
    expect(await tab.locator('[data-column-chart] .column-summary').first().textContent()).toMatch(/^NULL: \d+ · różnych: ≈?\d/);
    // A table whose statistics the tree lacks shows none, and asks for no file that is not there.
    await open('/datasets/rcn/transactions/');
    expect(await tab.locator('[data-column-chart]').count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('speaks Polish on the Polish page, and is usable on a 375 px wide phone', async () => {
    await tab.setViewportSize({ width: 375, height: 812 });
    try {
      await open('/pl/datasets/rcn/transactions/');
      expect(await tab.getAttribute('html', 'lang')).toBe('pl');
      expect(await tab.textContent('[data-explorer-status]')).toMatch(/^198 wierszy pasuje; pokazane wiersze od 1 do 198\.$/);
      expect(await tab.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
      const grid = (await tab.locator('[data-explorer-grid]').boundingBox())!;
      expect(grid.x).toBeGreaterThanOrEqual(0);
      expect(grid.x + grid.width).toBeLessThanOrEqual(375);
      expect(grid.height).toBeGreaterThan(200);
      // The form's controls fit the screen and work.
      for (const control of ['[data-filter-column]', '[data-filter-kind]', '[data-filter-value]']) {
        const box = (await tab.locator(control).boundingBox())!;
        expect(box.x + box.width, control).toBeLessThanOrEqual(375);
      }
      // The pager's two buttons share a line, on the screen, below the page's number.
      const [previous, next, pageText] = await Promise.all(
        ['[data-explorer-page="previous"]', '[data-explorer-page="next"]', '[data-explorer-page-text]'].map(
          async (selector) => (await tab.locator(selector).boundingBox())!,
        ),
      );
      expect(Math.abs(previous!.y - next!.y)).toBeLessThan(2);
      expect(next!.x + next!.width).toBeLessThanOrEqual(375);
      expect(pageText!.y + pageText!.height).toBeLessThanOrEqual(previous!.y);
      await tab.selectOption('[data-filter-column]', 'market_type_value');
      await tab.fill('[data-filter-value]', 'rynekWtorny');
      await afterView(tab, () => tab.click('[data-explorer-filter] button[type=submit]'));
      await sameAsDuckDB();
      await tab.screenshot({ path: 'test-results/site/table-pl-375.png' });
    } finally {
      await tab.setViewportSize({ width: 1280, height: 720 });
    }
    expect(problems).toEqual([]);
  });
});
