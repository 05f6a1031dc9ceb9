import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sensorWords } from '../../datasets/air-quality/words.ts';
import { districts } from '../../datasets/rcn/districts.ts';
import { marketTypes, propertyTypes } from '../../datasets/rcn/dictionaries.ts';
import { browsedSite, skipWithoutChromium, type Visit } from '../fixtures/chromium.ts';
import { parseCsv } from '../fixtures/csv.ts';
import type { TestServer } from '../fixtures/server.ts';
import { tinySnapshot, withDatabase } from '../fixtures/tiny.ts';

/**
 * The register analysis and the charts' reading aids in real Chromium, over the tiny city's site:
 * the tables' figures against DuckDB queries of their own over the snapshot's Parquet files (not the
 * declarations' SQL), the CSV beside the page equal to the table, the incomplete last month marked,
 * no Polish sensor words on English pages but marked unknowns, values shown on focus, hover and tap.
 */

const skip = skipWithoutChromium('test/site/register-analysis.test.ts');

/** Run in the page: a chart's table as text cells, header first. */
const tableOf = (id: string) =>
  `[...document.querySelectorAll('#${id} table[data-chart-table] tr')].map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent.trim()))`;

/** Numbers as an English page writes them (1,234.5) or a CSV (1234.5). */
const numberOf = (cell: string) => Number(cell.replaceAll(',', ''));

describe.skipIf(skip)('the register analysis and readable charts in Chromium', () => {
  let site: TestServer;
  let browser: Browser;
  let visit: Visit;
  let close: (() => Promise<void>) | undefined;
  /** By DuckDB over the snapshot's Parquet: per district, market type and month, transactions and the median price per m² of premises. */
  const expected = new Map<string, Map<string, { transactions: number; median: number | null }>>();
  let lastDay = '';

  beforeAll(async () => {
    ({ site, browser, visit, close } = await browsedSite('site-register', { tab: { viewport: { width: 1280, height: 900 } } }));
    const snapshot = await tinySnapshot();
    const parquet = (table: string) => `read_parquet('${join(snapshot.dir, 'rcn', table)}/**/*.parquet', hive_partitioning = false)`;
    await withDatabase(async (db) => {
      // Written apart from datasets/rcn/figures.ts: units unnested row by row, the district cut
      // from the parcel identifier by position, the month from strftime.
      const premises = `
        SELECT p.property_gml_id, sum(CAST(u.unit->>'usableAreaM2' AS DOUBLE)) AS area
        FROM ${parquet('properties')} p, LATERAL (SELECT unnest(CAST(p.units AS JSON[])) AS unit) u
        WHERE p.property_type_value = 'nieruchomoscLokalowa' GROUP BY p.property_gml_id`;
      const sold = `
        SELECT t.transaction_gml_id, strftime(t.document_date, '%Y-%m-01') AS month, t.market_type_value AS market,
          substr(p.parcel_ids[1], 1, 8) AS district, p.property_type_value AS type,
          CASE WHEN array_length(t.property_ids) = 1 THEN t.gross_price::DOUBLE / pr.area END AS premises_m2
        FROM ${parquet('transactions')} t
        LEFT JOIN ${parquet('properties')} p ON p.property_gml_id = t.property_ids[1]
        LEFT JOIN (${premises}) pr ON pr.property_gml_id = t.property_ids[1]`;
      for (const [dimension, column] of [
        ['district', 'district'],
        ['market-type', 'market'],
        ['month', 'month'],
      ] as const) {
        const rows = await db.rows<{ key: string; transactions: number | bigint; median: number | null }>(
          `SELECT ${column} AS key, count(*) AS transactions, round(quantile_cont(premises_m2, 0.5)) AS median FROM (${sold}) GROUP BY ${column}`,
        );
        expected.set(
          dimension,
          new Map(rows.map((row) => [row.key, { transactions: Number(row.transactions), median: row.median === null ? null : Number(row.median) }])),
        );
      }
      lastDay = (await db.rows<{ day: string }>(`SELECT strftime(max(document_date), '%Y-%m-%d') AS day FROM ${parquet('transactions')}`))[0]!.day;
    });
  }, 300_000);

  afterAll(() => close?.());

  it('tabulates transactions and the median price per m² by district, market type and month as DuckDB counts them, the CSV beside the page equal to the table', async () => {
    const names = {
      district: (key: string) => districts[key]?.en ?? key,
      'market-type': (key: string) => marketTypes.terms.find((term) => term.value === key)!.label.en,
      month: (key: string) => key,
    };
    await visit('/datasets/rcn/', async (page) => {
      for (const dimension of ['district', 'market-type', 'month'] as const) {
        const id = `chart-market-by-${dimension}`;
        const [header, ...rows] = await page.evaluate<string[][]>(tableOf(id));
        expect(header!.slice(1, 3), id).toEqual(['Transactions', 'Median price per m² of premises, PLN/m²']);
        const want = expected.get(dimension)!;
        expect(rows.map((row) => row[0]).sort(), id).toEqual([...want.keys()].map(names[dimension]).sort());
        for (const row of rows) {
          const key = [...want.keys()].find((candidate) => names[dimension](candidate) === row[0])!;
          const figures = want.get(key)!;
          expect(numberOf(row[1]!), `${id} ${row[0]} transactions`).toBe(figures.transactions);
          expect(row[2] === '' ? null : numberOf(row[2]!), `${id} ${row[0]} median`).toBe(figures.median);
        }
        // The CSV file beside the page holds the same cells, numbers written plainly.
        const href = await page.locator(`#${id} a[data-chart-csv]`).getAttribute('href');
        const response = await site.fetch(`/datasets/rcn/${href}`);
        expect(response.status, href!).toBe(200);
        expect(response.headers.get('content-type')).toContain('text/csv');
        const csv = parseCsv(await response.text());
        expect(csv[0], id).toEqual(header);
        expect(csv.length).toBe(rows.length + 1);
        for (const [i, row] of rows.entries()) {
          expect(
            csv[i + 1]!.map((cell, j) => ((j === 1 || j === 2) && cell !== '' ? numberOf(cell) : cell)),
            id,
          ).toEqual(row.map((cell, j) => ((j === 1 || j === 2) && cell !== '' ? numberOf(cell) : cell)));
        }
      }
      // Property types are named in the page's language.
      const types = (await page.evaluate<string[][]>(tableOf('chart-market-by-property-type'))).slice(1).map((row) => row[0]);
      for (const type of types) expect(propertyTypes.terms.map((term) => term.label.en)).toContain(type);
      // The definition of the price per m² is stated under the charts.
      expect(await page.locator('#chart-market-by-month').textContent()).toContain("Price per m² is a transaction's gross price");
    });
  });

  it('marks the last month incomplete when the register ends before its end', async () => {
    const month = `${lastDay.slice(0, 7)}-01`;
    const lastOfMonth = new Date(Date.UTC(Number(lastDay.slice(0, 4)), Number(lastDay.slice(5, 7)), 0)).toISOString().slice(0, 10);
    expect(lastDay < lastOfMonth, 'the tiny city’s register ends inside a month').toBe(true);
    await visit('/datasets/rcn/', async (page) => {
      const chart = page.locator('#chart-market-by-month');
      expect(await chart.locator('.chart-incomplete').getAttribute('data-incomplete')).toBe(month);
      const day = new Date(`${lastDay}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
      expect(await chart.locator('.chart-incomplete').textContent()).toContain(day);
      // Drawn apart in each panel, and flagged in the table and the CSV.
      expect(await chart.locator('.panels.wide path.series.incomplete').count()).toBe(2);
      expect(await chart.locator('.panels.wide rect.incomplete-span').count()).toBe(2);
      const last = (await page.evaluate<string[][]>(tableOf('chart-market-by-month'))).at(-1)!;
      expect(last[0]).toBe(month);
      expect(last.at(-1)).toBe(`incomplete: ${lastDay}`);
    });
  });

  it('shows no Polish sensor words on English pages, but unknown ones marked lang="pl"', async () => {
    const polish = Object.entries(sensorWords)
      .filter(([word, names]) => names.en !== word)
      .map(([word]) => word);
    await visit('/datasets/air-quality/', async (page) => {
      const unmarked = await page.evaluate<string[]>(
        `[...document.querySelectorAll('figure.chart *')].filter((element) => element.children.length === 0 && element.closest('[lang]')?.getAttribute('lang') !== 'pl').map((element) => element.textContent)`,
      );
      for (const word of polish)
        expect(
          unmarked.filter((content) => new RegExp(`(^|[^\\p{L}])${word}([^\\p{L}]|$)`, 'u').test(content ?? '')),
          word,
        ).toEqual([]);
      const shown = unmarked.join('\n');
      for (const english of ['Temperature (°C)', 'Very good', 'Frost', 'Heat']) expect(shown).toContain(english);
    });
    await visit('/pl/datasets/air-quality/', async (page) => {
      expect(await page.locator('figure.chart').first().textContent()).toContain('Temperatura (°C)');
    });
  });

  it('shows a value when a panel gets the focus and as the arrow keys move, on hover and on tap', async () => {
    const want = expected.get('district')!;
    const last = [...want.keys()].sort().at(-1)!;
    await visit('/datasets/rcn/', async (page) => {
      const panel = page.locator('#chart-market-by-district .panels.wide svg.plot').first();
      const tip = page.locator('#chart-market-by-district .panels.wide .chart-tip').first();
      await panel.focus();
      await page.keyboard.press('End');
      expect(await tip.isVisible()).toBe(true);
      const text = (await tip.textContent()) ?? '';
      expect(text).toContain(districts[last]!.en);
      expect(text).toContain(`Transactions: ${want.get(last)!.transactions.toLocaleString('en-GB')}`);
      await page.keyboard.press('Home');
      expect(await tip.textContent()).toContain(districts[[...want.keys()].sort()[0]!]!.en);
      await page.keyboard.press('Escape');
      expect(await tip.isVisible()).toBe(false);
      // The pointer: the middle of the month chart's price panel names a month and a price.
      const price = page.locator('#chart-market-by-month .panels.wide svg.plot').nth(1);
      await price.hover();
      const hovered = (await page.locator('#chart-market-by-month .panels.wide .chart-tip').nth(1).textContent()) ?? '';
      expect(hovered).toMatch(/\d{4}\n.*PLN\/m²: [\d,]+/);
    });
    const touch = await browser.newContext({ hasTouch: true, isMobile: true, viewport: { width: 390, height: 800 } });
    try {
      const page = await touch.newPage();
      await page.goto(`${site.url}/datasets/rcn/`);
      // A phone gets the panels drawn for its width.
      const panel = page.locator('#chart-market-by-market-type .panels.phone svg.plot').first();
      await panel.scrollIntoViewIfNeeded();
      await panel.tap();
      const tip = page.locator('#chart-market-by-market-type .panels.phone .chart-tip').first();
      expect(await tip.isVisible()).toBe(true);
      expect(await tip.textContent()).toMatch(/market\nTransactions: \d+/);
    } finally {
      await touch.close();
    }
  });
});
