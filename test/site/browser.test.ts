import { mkdir } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasets } from '../../datasets/index.ts';
import { browsedSite, skipWithoutChromium, type Visit } from '../fixtures/chromium.ts';
import type { TestServer } from '../fixtures/server.ts';
import { languageOf, linksOnPage, pagesOf, phoneLayout, SCREENSHOTS, shoot, twinOf } from '../fixtures/site-pages.ts';

/**
 * The built site in real Chromium: every page in both languages, the language switch, a link
 * check over the whole output, and screenshots. `odsnap build` makes the static tree of the tiny
 * city with the site in it, so its examples are real files; `odsnap serve` serves it all, as
 * `npm start` does.
 */

const skip = skipWithoutChromium('test/site/browser.test.ts');

describe.skipIf(skip)('the site in Chromium', () => {
  let pages: string[];
  let site: TestServer;
  let tab: Page;
  let visit: Visit;
  let close: (() => Promise<void>) | undefined;
  const links = new Map<string, Set<string>>(); // target → pages linking to it
  const serverLinks = new Set<string>();

  beforeAll(async () => {
    let tree: string;
    // One tab for every visit: a new one per page costs more than the page itself.
    ({ tree, site, tab, visit, close } = await browsedSite('site'));
    pages = await pagesOf(tree);
  }, 300_000);

  afterAll(() => close?.());

  it('has every page in both languages, and every endpoint has its docs page', () => {
    const english = pages.filter((path) => languageOf(path) === 'en');
    expect(pages.filter((path) => languageOf(path) === 'pl').sort()).toEqual(english.map(twinOf).sort());
    const endpoints = datasets.flatMap((dataset) => dataset.endpoints);
    expect(english.filter((path) => path.split('/').length === 5 && path.startsWith('/docs/') && path !== '/docs/openapi/')).toHaveLength(endpoints.length);
  });

  it('renders every page with no console error, in its language, with its language switch to the twin page', async () => {
    for (const path of pages) {
      await visit(path, async (page) => {
        expect(await page.getAttribute('html', 'lang'), path).toBe(languageOf(path));
        expect(await page.locator('h1').count(), path).toBe(1);
        // The tiny city is the sample's: every page says its records are synthetic.
        expect(await page.locator('[data-sample-notice]').count(), path).toBe(1);
        // Texts shared with the OpenAPI document mark code with backticks; a page shows it as code.
        expect(
          await page
            .locator('main :not(pre, pre *, script, style)')
            .evaluateAll(
              (elements) => elements.filter((e) => [...e.childNodes].some((n) => n.nodeType === 3 && (n.textContent ?? '').includes('\u0060'))).length,
            ),
          path,
        ).toBe(0);
        const switchHref = await page.getAttribute('[data-language-switch]', 'href');
        expect(switchHref, path).toBe(twinOf(path));
        for (const link of await page.evaluate<{ url: string; server: boolean }[]>(linksOnPage)) {
          const url = new URL(link.url);
          if (url.origin !== site.url) continue;
          if (link.server) serverLinks.add(url.pathname + url.search);
          else links.set(url.pathname + url.hash, (links.get(url.pathname + url.hash) ?? new Set()).add(path));
        }
      });
    }
    // Over 200 pages, a table's page among them for every table in both languages.
  }, 300_000);

  it('follows the language switch by keyboard to the twin page and back', async () => {
    for (const start of ['/', '/docs/citybike/rides/']) {
      await visit(start, async (page) => {
        await page.focus('[data-language-switch]');
        await Promise.all([page.waitForURL(site.url + twinOf(start)), page.keyboard.press('Enter')]);
        expect(await page.getAttribute('html', 'lang')).toBe('pl');
        await Promise.all([page.waitForURL(site.url + start), page.click('[data-language-switch]')]);
        expect(await page.getAttribute('html', 'lang')).toBe('en');
      });
    }
  });

  it('fits every page into a 375 px wide screen, long endpoint paths and the request form for each endpoint too', async () => {
    const wide: string[] = [];
    const cramped: string[] = [];
    const overflow = 'document.documentElement.scrollWidth - document.documentElement.clientWidth';
    await tab.setViewportSize({ width: 375, height: 800 });
    try {
      for (const path of pages) {
        await visit(path, async (page) => {
          if ((await page.evaluate<number>(overflow)) > 0) wide.push(path);
          const phone = await page.evaluate<{ headerLines: number; navLines: number; smallText: string[]; wideTables: number[] }>(phoneLayout);
          if (phone.headerLines > 2 || phone.navLines > 1) cramped.push(`${path}: header on ${phone.headerLines} lines, navigation on ${phone.navLines}`);
          if (phone.smallText.length) cramped.push(`${path}: chart or map text under 11 px: ${phone.smallText.slice(0, 3).join('; ')}`);
          if (phone.wideTables.length) cramped.push(`${path}: tables wider than the screen: ${phone.wideTables.join(', ')} px`);
          if (!path.endsWith('/query/')) return;
          for (const endpoint of await page
            .locator('[data-request-endpoint] option')
            .evaluateAll((options) => options.map((option) => (option as unknown as { value: string }).value))) {
            await page.selectOption('[data-request-endpoint]', endpoint);
            if ((await page.evaluate<number>(overflow)) > 0) wide.push(`${path} ${endpoint}`);
          }
        });
      }
    } finally {
      await tab.setViewportSize({ width: 1280, height: 720 });
    }
    expect(wide).toEqual([]);
    expect(cramped).toEqual([]);
  });

  it('lists every data set at /datasets/, in both languages, linked from the navigation', async () => {
    for (const path of ['/datasets/', '/pl/datasets/']) {
      await visit(path, async (page) => {
        const listed = await page.locator('[data-datasets] [data-dataset]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-dataset')));
        expect(listed, path).toEqual(datasets.map((dataset) => dataset.name));
        expect(await page.locator('.site-header nav a[aria-current="page"]').getAttribute('href'), path).toBe(path);
      });
    }
  });

  it('shows a browser the HTML 404 page, status 404, for a page that is not there; the API keeps its problem JSON', async () => {
    const page = await tab.goto(`${site.url}/datasets/nowhere/`);
    expect(page?.status()).toBe(404);
    expect(page?.headers()['content-type']).toBe('text/html; charset=utf-8');
    expect(await tab.locator('[data-not-found] h1').textContent()).toBe('Page not found');
    expect(await tab.locator('[data-not-found] [lang="pl"] h2').textContent()).toBe('Nie znaleziono strony');
    expect(await tab.locator('[data-sample-notice]').count()).toBe(1);
    const api = await tab.goto(`${site.url}/api/public/nope`);
    expect(api?.status()).toBe(404);
    expect(api?.headers()['content-type']).toBe('application/problem+json');
    expect(((await api!.json()) as { status: number }).status).toBe(404);
    // Chromium logs each 404 to the console a moment later: left here, not counted by the next visit.
    await tab.goto('about:blank');
  });

  it('opens a list file of the tree in the viewer as a table, follows its next page, and opens a record from it', async () => {
    const first = '/api/public/rcn/transactions.json';
    const { items, pagination } = (await (await fetch(site.url + first)).json()) as {
      items: { uri: string; transactionGmlId: string }[];
      pagination: { next: string };
    };
    await visit(`/view/?url=${encodeURIComponent(first)}`, async (page) => {
      await page.locator('[data-json-view-table] tbody tr').first().waitFor();
      expect(await page.locator('[data-json-view-list="items"] [data-json-view-table] > tbody > tr').count()).toBe(items.length);
      expect(await page.locator('[data-json-view-table] thead th').evaluateAll((cells) => cells.map((cell) => cell.textContent))).toEqual(
        expect.arrayContaining(['uri', 'transactionGmlId', 'grossPrice']),
      );
      expect(await page.getAttribute('[data-json-view-raw]', 'href')).toBe(site.url + first);

      await Promise.all([
        page.waitForURL((url) => url.searchParams.get('url') === pagination.next),
        page.locator('[data-json-view-page="next"]').first().click(),
      ]);
      await page.locator('[data-json-view-table] tbody tr').first().waitFor();
      const next = (await (await fetch(site.url + pagination.next)).json()) as {
        items: { uri: string; transactionGmlId: string }[];
        pagination: { next: string | null };
      };
      expect(await page.locator('[data-json-view-list="items"] [data-json-view-table] > tbody > tr').count()).toBe(next.items.length);
      // The tree's pages link forward only; the last has no next page.
      expect((await page.locator('[data-json-view-page="next"]').count()) > 0).toBe(next.pagination.next !== null);

      const record = next.items[0]!;
      await Promise.all([
        page.waitForURL((url) => url.searchParams.get('url') === record.uri),
        page.locator('[data-json-view-table] > tbody > tr').first().locator('[data-json-view-link]').first().click(),
      ]);
      await page.locator('[data-json-view-fields] dl').first().waitFor();
      const fields = await page.locator('[data-json-view-fields] > dl > dt').evaluateAll((terms) => terms.map((term) => term.textContent));
      expect(fields).toEqual(expect.arrayContaining(['uri', 'transactionGmlId', 'properties']));
      expect(await page.locator('[data-json-view-fields] > dl > dd').filter({ hasText: record.transactionGmlId }).count()).toBeGreaterThan(0);
    });
  });

  it("refuses to open a file of another origin in the viewer, and puts a view link beside the site's JSON links", async () => {
    await visit('/view/?url=https%3A%2F%2Fexample.org%2Fdata.json', async (page) => {
      await page.waitForFunction("document.querySelector('[data-json-view-status]')?.textContent !== ''");
      expect(await page.textContent('[data-json-view-status]')).toContain('example.org');
      expect(await page.locator('[data-json-view-table], [data-json-view-fields]').count()).toBe(0);
    });
    await visit('/datasets/rcn/', async (page) => {
      const views = await page.locator('main a.json-view').evaluateAll((links) => links.map((link) => link.getAttribute('href') ?? ''));
      expect(views.length).toBeGreaterThan(0);
      for (const href of views) expect(href).toMatch(/^\/view\/\?url=%2F.*\.json/);
    });
  });

  it('starts keyboard navigation at a skip link to the content', async () => {
    await visit('/pl/', async (page) => {
      await page.keyboard.press('Tab');
      expect(await page.evaluate("document.activeElement?.getAttribute('href')")).toBe('#main');
    });
  });

  it('has no broken internal link in the whole output', async () => {
    expect(links.size).toBeGreaterThan(pages.length);
    const broken: string[] = [];
    const bodies = new Map<string, string>();
    for (const [target, from] of links) {
      const [pathname, fragment] = target.split('#') as [string, string | undefined];
      if (!bodies.has(pathname)) {
        const response = await fetch(site.url + pathname);
        bodies.set(pathname, response.ok ? await response.text() : '');
        if (!response.ok) broken.push(`${pathname} (${response.status}), linked from ${[...from].slice(0, 3).join(', ')}`);
      }
      if (fragment && !bodies.get(pathname)!.includes(`id="${fragment}"`)) broken.push(`${target}: no element #${fragment}`);
    }
    expect(broken).toEqual([]);
  });

  it('links examples into the static tree and the server that answer', async () => {
    const treeLinks = [...links.keys()].filter((target) => target.startsWith('/api/public/') && target.endsWith('.json'));
    expect(treeLinks.length).toBeGreaterThan(datasets.length);
    expect(serverLinks.size).toBeGreaterThan(datasets.length);
    for (const target of serverLinks) expect((await site.fetch(target)).status, target).toBe(200);
  });

  it("serves the OpenAPI document with every endpoint, linked from the tree's index", async () => {
    const index = (await (await fetch(`${site.url}/api/public/index.json`)).json()) as { openapi?: string; site?: string };
    expect(index.openapi).toBe('/api/public/openapi.json');
    expect(index.site).toBe('/');
    const served = (await (await fetch(`${site.url}${index.openapi}`)).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(served.openapi).toBe('3.1.0');
    expect(Object.keys(served.paths).sort()).toEqual(datasets.flatMap((d) => d.endpoints.map((e) => e.fullPath)).sort());
  });

  it('saves screenshots of every kind of page, 1280 and 375 px wide', async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    const record = ((await (await fetch(`${site.url}/api/public/rcn/transactions.json`)).json()) as { items: { uri: string }[] }).items[0]!.uri;
    const kinds: [string, string][] = [
      ['/', 'home-en'],
      ['/pl/', 'home-pl'],
      ['/datasets/', 'datasets-en'],
      ['/datasets/citybike/', 'dataset-en'],
      ['/pl/datasets/air-quality/', 'dataset-pl'],
      ['/map/', 'map-en'],
      ['/downloads/', 'downloads-en'],
      ['/docs/', 'docs-en'],
      ['/docs/rcn/', 'dataset-docs-en'],
      ['/docs/citybike/rides/', 'endpoint-en'],
      ['/docs/openapi/', 'openapi-en'],
      ['/query/', 'query-en'],
      ['/datasets/rcn/transactions/', 'table-en'],
      ['/pl/datasets/citybike/rides/', 'table-pl'],
      [`/view/?url=${encodeURIComponent('/api/public/rcn/transactions.json')}`, 'viewer-list-en'],
      [`/pl/view/?url=${encodeURIComponent(record)}`, 'viewer-record-pl'],
    ];
    try {
      for (const width of [1280, 375]) {
        await tab.setViewportSize({ width, height: 900 });
        for (const [path, name] of kinds) {
          await visit(path, async (page) => {
            if (path.includes('/view/')) await page.locator('[data-json-view-fields], [data-json-view-table]').first().waitFor();
            if (name.startsWith('table-'))
              await page.locator('[data-table-explorer]:not([aria-busy]) .explorer-body [role=row]').first().waitFor({ timeout: 60_000 });
            await shoot(page, `${name}-${width}`);
          });
        }
        await tab.goto(`${site.url}/nowhere/`);
        await shoot(tab, `not-found-${width}`);
      }
    } finally {
      await tab.setViewportSize({ width: 1280, height: 720 });
    }
  }, 300_000);
});
