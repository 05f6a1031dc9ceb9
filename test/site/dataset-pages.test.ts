import { readFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChartData, MapLayerData } from '../../datasets/vocabulary/figure.ts';
import { datasets } from '../../datasets/index.ts';
import { CATALOGUE } from '../../core/published-tree.ts';
import type { CatalogueTable } from '../../site/snapshot/tree-snapshot.ts';
import type { Page } from 'playwright-core';
import { browsedSite, publishedFigures, skipWithoutChromium, type Visit } from '../fixtures/chromium.ts';
import type { TestServer } from '../fixtures/server.ts';

/**
 * The data-set pages, the map and the downloads page in real Chromium, over the tiny city's tree
 * built with the site (as browser.test.ts does): charts and maps draw, counts match the tree,
 * every download answers with its catalogued bytes, in both languages.
 */

const skip = skipWithoutChromium('test/site/dataset-pages.test.ts');

const SCREENSHOTS = 'test-results/site';
const prefixes = { en: '', pl: '/pl' } as const;

/** Run in the page (as text: the tests are type-checked without the DOM's types). */
const drawnCharts = `[...document.querySelectorAll('figure.chart')].map((figure) => ({
  id: figure.id,
  // The panels shown at this width (each chart is drawn for a page and for a phone, one hidden).
  panels: [...figure.querySelectorAll('svg.plot')].filter((svg) => svg.getClientRects().length > 0).map((svg) => ({
    label: svg.getAttribute('aria-label') ?? '',
    role: svg.getAttribute('role'),
    // A lone point is a dot (a zero-length segment with a round cap), drawn though its box is empty.
    lines: [...svg.querySelectorAll('path.series')].filter((path) => (path.getAttribute('d') ?? '').length > 4 && (path.getBBox().width + path.getBBox().height > 0 || /l0 0/.test(path.getAttribute('d')))).length,
    bars: [...svg.querySelectorAll('rect.series')].filter((rect) => rect.getBBox().height > 0).length,
    bands: svg.querySelectorAll('.bands rect').length,
    ticks: svg.querySelectorAll('.grid text').length,
  })),
  details: !!figure.querySelector('details.chart-data'),
}))`;
const drawnMap = `(() => {
  const svg = document.querySelector('svg.places');
  if (!svg) return null;
  const count = (selector) => [...svg.querySelectorAll(selector)].filter((marker) => marker.getBBox().width > 0).length;
  return { own: count('g.layer:not(.other) > *'), other: count('g.layer.other > *'), titles: svg.querySelectorAll('g.layer title').length, label: svg.getAttribute('aria-label') };
})()`;

/** Run in the page: the dates (YYYY-MM-DD) of its main part that a line break splits. */
const splitDates = `(() => {
  const split = [];
  const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const match of node.textContent.matchAll(/\\d{4}-\\d{2}-\\d{2}/g)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const lines = new Set([...range.getClientRects()].filter((box) => box.width > 0).map((box) => Math.round(box.top)));
      if (lines.size > 1) split.push(match[0] + ' in ' + node.parentElement.closest('td, dd, p, li')?.textContent.trim().slice(0, 60));
    }
  }
  return split;
})()`;

/**
 * Run in the page: for each panel shown (a chart is drawn for a page and for a phone, one hidden),
 * its title (the panel's, or the chart's for a lone panel), its y axis's title, and the x axis's
 * labels that overlap one another, the axis's title or the screen's edge.
 */
const chartAxes = `[...document.querySelectorAll('figure.chart')].flatMap((figure) =>
  [...figure.querySelectorAll('svg.plot')].filter((svg) => svg.getClientRects().length > 0).map((svg) => {
    const title = svg.closest('.panel').querySelector('.panel-title')?.textContent ?? figure.querySelector('h3').textContent;
    const yTitle = [...svg.querySelectorAll('.axis-label')].find((text) => text.getAttribute('text-anchor') !== 'end')?.textContent ?? '';
    const xTitle = [...svg.querySelectorAll('.axis-label')].find((text) => text.getAttribute('text-anchor') === 'end');
    const labels = [...svg.querySelectorAll('.grid text[text-anchor="middle"]')].filter((text) => text.textContent.trim());
    const box = (element) => element.getBoundingClientRect();
    const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
    const clashes = [];
    labels.forEach((label, i) => {
      for (const other of labels.slice(i + 1)) if (meet(box(label), box(other))) clashes.push(label.textContent + ' / ' + other.textContent);
      if (xTitle && meet(box(label), box(xTitle))) clashes.push(label.textContent + ' / the axis title');
      if (box(label).left < 0 || box(label).right > document.documentElement.clientWidth) clashes.push(label.textContent + ' past the screen');
    });
    return { chart: figure.id, title, yTitle, clashes };
  }))`;

describe.skipIf(skip)('the data-set pages and the downloads page in Chromium', () => {
  let site: TestServer;
  let tree: string;
  let catalogue: { tables: CatalogueTable[] };
  let figures: Map<string, { charts: ChartData[]; map: MapLayerData[] }>;
  let visit: Visit;
  let tab: Page;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ tree, site, tab, visit, close } = await browsedSite('site-datasets', { tab: { viewport: { width: 1280, height: 900 } } }));
    catalogue = JSON.parse(await readFile(join(tree, CATALOGUE), 'utf8'));
    figures = await publishedFigures(tree);
  }, 300_000);

  afterAll(() => close?.());

  it('draws every chart of every data set, panel by panel, with a text alternative and its data', async () => {
    for (const [lang, prefix] of Object.entries(prefixes)) {
      for (const dataset of datasets) {
        const path = `${prefix}/datasets/${dataset.name}/`;
        const published = figures.get(dataset.name)!;
        await visit(path, async (page) => {
          expect(await page.locator('h1').textContent(), path).toBe(dataset.title[lang as keyof typeof prefixes]);
          const charts =
            await page.evaluate<
              { id: string; panels: { label: string; role: string | null; lines: number; bars: number; bands: number; ticks: number }[]; details: boolean }[]
            >(drawnCharts);
          expect(
            charts.map((chart) => chart.id),
            path,
          ).toEqual(published.charts.map((chart) => `chart-${chart.name}`));
          for (const [i, chart] of charts.entries()) {
            const data = published.charts[i]!;
            const panels = new Set(data.rows.map((row) => row.panel ?? '')).size;
            expect(chart.panels, `${path} ${chart.id}`).toHaveLength(panels);
            expect(chart.details).toBe(true);
            expect(data.x, `${path} ${chart.id}: the figures publish no SQL`).not.toHaveProperty('through');
            for (const panel of chart.panels) {
              expect(panel.role).toBe('img');
              expect(panel.label.length, `${path} ${chart.id}`).toBeGreaterThan(10);
              expect(panel.ticks, `${path} ${chart.id}`).toBeGreaterThan(3);
              expect(data.kind === 'line' ? panel.lines : panel.bars, `${path} ${chart.id}`).toBeGreaterThan(0);
            }
            if (data.bands.length)
              expect(
                chart.panels.some((panel) => panel.bands > 0),
                `${path} ${chart.id} bands`,
              ).toBe(true);
          }
        });
      }
    }
  });

  it('shows the snapshot, the rows of every table and the coverage of each data set', async () => {
    const index = JSON.parse(await readFile(join(tree, 'api/public/index.json'), 'utf8')) as { snapshot: { id: string } };
    for (const dataset of datasets) {
      await visit(`/datasets/${dataset.name}/`, async (page) => {
        const facts = (await page.locator('dl.facts').textContent()) ?? '';
        expect(facts).toContain(index.snapshot.id);
        const rows = catalogue.tables.filter((table) => table.dataset === dataset.name).reduce((sum, table) => sum + table.rows, 0);
        expect(facts).toContain(rows.toLocaleString('en-GB'));
        const tableRows = await page.locator('table.data-tables tbody tr').count();
        expect(tableRows).toBe(Object.keys(dataset.tables).length);
        expect(await page.locator(`a[href="/docs/${dataset.name}/"]`).count(), 'link to its API docs').toBeGreaterThan(0);
      });
    }
  });

  it('keeps each date on one line, on the home page, the data-set index and pages, downloads and status, at a page’s width and phones’, in both languages', async () => {
    const split: string[] = [];
    try {
      for (const width of [1280, 375, 320]) {
        await tab.setViewportSize({ width, height: 900 });
        for (const prefix of Object.values(prefixes)) {
          for (const path of ['/', '/datasets/', '/downloads/', '/status/', ...datasets.map((dataset) => `/datasets/${dataset.name}/`)]) {
            await visit(`${prefix}${path}`, async (page) => {
              split.push(...(await page.evaluate<string[]>(splitDates)).map((date) => `${width} px ${prefix}${path}: ${date}`));
            });
          }
        }
      }
    } finally {
      await tab.setViewportSize({ width: 1280, height: 900 });
    }
    expect(split).toEqual([]);
  });

  it('titles each chart axis with what its panel’s title does not say, its unit included', async () => {
    const repeated: string[] = [];
    const axes = new Map<string, string[]>();
    for (const [lang, prefix] of Object.entries(prefixes)) {
      for (const dataset of datasets) {
        await visit(`${prefix}/datasets/${dataset.name}/`, async (page) => {
          for (const panel of await page.evaluate<{ chart: string; title: string; yTitle: string }[]>(chartAxes)) {
            if (panel.yTitle.trim().toLowerCase() === panel.title.trim().toLowerCase()) repeated.push(`${lang} ${panel.chart}: ${panel.title}`);
            axes.set(`${lang} ${panel.chart}`, [...(axes.get(`${lang} ${panel.chart}`) ?? []), panel.yTitle]);
          }
        });
      }
    }
    expect(repeated).toEqual([]);
    // A panel named by the data with its unit (PM10 (µg/m³)): its axis says what the values are, in that unit.
    expect(axes.get('en chart-weekly-means')?.[0]).toBe('Weekly mean, µg/m³');
    expect(axes.get('pl chart-weekly-means')?.[0]).toBe('Średnia tygodniowa, µg/m³');
    expect([...axes.values()].flat().filter((title) => /panel/.test(title))).toEqual([]);
  });

  it('keeps the x axis’s labels apart, whole and on the screen, at a page’s width and a phone’s, in both languages', async () => {
    const clashes: string[] = [];
    try {
      for (const width of [1280, 375]) {
        await tab.setViewportSize({ width, height: 900 });
        for (const prefix of Object.values(prefixes)) {
          for (const dataset of datasets) {
            await visit(`${prefix}/datasets/${dataset.name}/`, async (page) => {
              for (const panel of await page.evaluate<{ chart: string; clashes: string[] }[]>(chartAxes))
                clashes.push(...panel.clashes.map((clash) => `${width} px ${prefix} ${panel.chart}: ${clash}`));
            });
          }
        }
      }
    } finally {
      await tab.setViewportSize({ width: 1280, height: 900 });
    }
    expect(clashes).toEqual([]);
  });

  it('maps every place, a data set’s own layers highlighted, with names as tooltips', async () => {
    const placesOf = (name: string) => figures.get(name)!.map.reduce((sum, layer) => sum + layer.places.length, 0);
    const all = datasets.reduce((sum, dataset) => sum + placesOf(dataset.name), 0);
    expect(all).toBeGreaterThan(0);
    for (const prefix of Object.values(prefixes)) {
      await visit(`${prefix}/map/`, async (page) => {
        expect(await page.evaluate(drawnMap)).toMatchObject({ own: all, other: 0, titles: all });
      });
      for (const dataset of datasets.filter((entry) => placesOf(entry.name) > 0)) {
        await visit(`${prefix}/datasets/${dataset.name}/`, async (page) => {
          expect(await page.evaluate(drawnMap), dataset.name).toMatchObject({ own: placesOf(dataset.name), other: all - placesOf(dataset.name) });
        });
      }
    }
  });

  it('lists every Parquet file and its CSV twin, each link answering with its catalogued bytes', async () => {
    const files = catalogue.tables.flatMap((table) => table.files);
    for (const prefix of Object.values(prefixes)) {
      await visit(`${prefix}/downloads/`, async (page) => {
        const links = await page.evaluate<{ href: string; bytes: string | null; sha256: string | null; csv: string | null; csvBytes: string | null }[]>(
          `[...document.querySelectorAll('table.files tbody tr')].map((row) => ({ href: row.querySelector('a').getAttribute('href'), bytes: row.querySelector('a').dataset.bytes, sha256: row.querySelector('[data-sha256]')?.dataset.sha256 ?? null, csv: row.querySelector('a[href$=".csv.gz"]')?.getAttribute('href') ?? null, csvBytes: row.querySelector('a[href$=".csv.gz"]')?.dataset.bytes ?? null }))`,
        );
        expect(links.map((link) => link.href).sort()).toEqual(files.map((file) => file.url).sort());
        for (const link of links) {
          const file = files.find((entry) => entry.url === link.href)!;
          expect(link.sha256).toBe(file.sha256);
          expect(Number(link.bytes)).toBe(file.bytes);
          expect(link.csv).toBe(file.csv.url);
          expect(Number(link.csvBytes)).toBe(file.csv.bytes);
        }
        const text = (await page.locator('main').textContent()) ?? '';
        expect(text).toContain('read_parquet(');
        expect(text).toContain('odsnap pull');
        expect(await page.locator('a[href="https://creativecommons.org/licenses/by/4.0/"]').count()).toBeGreaterThan(0);
        for (const described of ['/datapackage.json', '/downloads/dcat.jsonld', '/downloads/catalogue.json', '/downloads/odsnap.sql'])
          expect(await page.locator(`a[href="${described}"]`).count(), described).toBe(1);
      });
    }
    for (const file of files) {
      const response = await site.fetch(file.url);
      const body = Buffer.from(await response.arrayBuffer());
      expect(response.status, file.url).toBe(200);
      expect(body.length, file.url).toBe(file.bytes);
      expect(body.subarray(0, 4).toString(), file.url).toBe('PAR1');
      const csv = await site.fetch(file.csv.url);
      expect(csv.status, file.csv.url).toBe(200);
      expect(Buffer.from(await csv.arrayBuffer()).length, file.csv.url).toBe(file.csv.bytes);
    }
  });

  it('saves a screenshot of a data-set page', async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    const shown = datasets.find((dataset) => dataset.charts.some((chart) => chart.bands)) ?? datasets[0]!;
    await visit(`/datasets/${shown.name}/`, async (page) => {
      await page.screenshot({ path: join(SCREENSHOTS, 'dataset-en.png'), fullPage: true });
    });
  });
});
