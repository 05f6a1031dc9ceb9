import { mkdir, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasets } from '../../datasets/index.ts';
import { browserTestsRequired, chromiumPath, launchChromium, servedSite, watchedTab } from '../fixtures/chromium.ts';
import type { TestServer } from '../fixtures/server.ts';

/**
 * The built site in real Chromium: every page in both languages, the language switch, a link
 * check over the whole output, and screenshots. `odsnap build` makes the static tree of the tiny
 * city with the site in it, so its examples are real files; `odsnap serve` serves it all, as
 * `npm start` does.
 */

const executablePath = chromiumPath();
const skip = !executablePath && !browserTestsRequired();
if (skip) console.warn('test/site/browser.test.ts: skipped, no Chromium found (apt-get install chromium, or set CHROMIUM_PATH); CI never skips it');

const SCREENSHOTS = 'test-results/site';

/** Every page of the built site as a URL path: `/`, `/pl/docs/rcn/`, … */
async function pagesOf(siteDir: string): Promise<string[]> {
  const entries = await readdir(siteDir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name === 'index.html')
    .map((entry) => `/${relative(siteDir, entry.parentPath).split('\\').join('/')}/`.replace(/^\/+/, '/').replace(/\/+$/, '/'))
    .sort();
}

/** Run in the page (as text: the tests are type-checked without the DOM's types): every URL the page refers to. */
const linksOnPage = `[...document.querySelectorAll('a[href], link[href], script[src], img[src]')]
  .map((element) => ({ url: element.href || element.src, server: element.hasAttribute('data-server') }))`;

const languageOf = (path: string) => (path === '/pl/' || path.startsWith('/pl/') ? 'pl' : 'en');
/** The same page in the other language, by the site's layout: English at /, Polish under /pl/. */
const twinOf = (path: string) => (languageOf(path) === 'pl' ? path.slice(3) || '/' : `/pl${path}`);

describe.skipIf(skip)('the site in Chromium', () => {
  let pages: string[];
  let site: TestServer;
  let browser: Browser;
  let tab: Page;
  let open: (url: string, use?: (page: Page) => Promise<void>) => Promise<void>;
  const links = new Map<string, Set<string>>(); // target → pages linking to it
  const serverLinks = new Set<string>();

  beforeAll(async () => {
    let tree: string;
    ({ tree, site } = await servedSite('site'));
    pages = await pagesOf(tree);
    browser = await launchChromium();
    // One tab for every visit: a new one per page costs more than the page itself.
    ({ tab, visit: open } = await watchedTab(browser));
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  const visit = (path: string, use?: (page: Page) => Promise<void>) => open(site.url + path, use);

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
        // Texts shared with the OpenAPI document mark code with backticks; a page shows it as code.
        expect(await page.locator('main :not(pre, pre *)').evaluateAll((elements) => elements.filter((e) => [...e.childNodes].some((n) => n.nodeType === 3 && (n.textContent ?? '').includes('\u0060'))).length), path).toBe(0);
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
  });

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
    const overflow = 'document.documentElement.scrollWidth - document.documentElement.clientWidth';
    await tab.setViewportSize({ width: 375, height: 800 });
    try {
      for (const path of pages) {
        await visit(path, async (page) => {
          if ((await page.evaluate<number>(overflow)) > 0) wide.push(path);
          if (!path.endsWith('/query/')) return;
          for (const endpoint of await page.locator('[data-request-endpoint] option').evaluateAll((options) => options.map((option) => (option as unknown as { value: string }).value))) {
            await page.selectOption('[data-request-endpoint]', endpoint);
            if ((await page.evaluate<number>(overflow)) > 0) wide.push(`${path} ${endpoint}`);
          }
        });
      }
    } finally {
      await tab.setViewportSize({ width: 1280, height: 720 });
    }
    expect(wide).toEqual([]);
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

  it('serves the OpenAPI document with every endpoint, linked from the tree\'s index', async () => {
    const index = (await (await fetch(`${site.url}/api/public/index.json`)).json()) as { openapi?: string; site?: string };
    expect(index.openapi).toBe('/api/public/openapi.json');
    expect(index.site).toBe('/');
    const served = (await (await fetch(`${site.url}${index.openapi}`)).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(served.openapi).toBe('3.1.0');
    expect(Object.keys(served.paths).sort()).toEqual(datasets.flatMap((d) => d.endpoints.map((e) => e.fullPath)).sort());
  });

  it('saves screenshots of the home page', async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    for (const [path, name] of [['/', 'home-en'], ['/pl/', 'home-pl'], ['/docs/citybike/rides/', 'endpoint-en']] as const) {
      await tab.setViewportSize({ width: 1280, height: 900 });
      await visit(path, async (page) => {
        await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
      });
    }
  });
});
