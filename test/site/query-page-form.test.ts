import type { Server } from 'node:http';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browsedSite, skipWithoutChromium } from '../fixtures/chromium.ts';
import { dictionaries, pageOf, runSql, sqlOnServer, startStaticHost } from '../fixtures/query-page.ts';
import type { TestServer } from '../fixtures/server.ts';

/**
 * The query page's v1 form in real Chromium, against `odsnap serve`; and the same page from a
 * static host, where no server answers: the form says so, SQL still runs.
 */

const skip = skipWithoutChromium('test/site/query-page-form.test.ts');

describe.skipIf(skip)('the query page in Chromium', () => {
  let site: TestServer;
  let staticHost: { url: string; server: Server };
  let tree: string;
  let tab: Page;
  let problems: string[];
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ tree, site, tab, problems, close } = await browsedSite('query-page-form'));
    staticHost = await startStaticHost(tree);
  }, 300_000);

  afterAll(async () => {
    await close?.();
    await new Promise((closed) => staticHost?.server.close(closed));
  });

  async function open(origin: string, path: string): Promise<void> {
    problems.length = 0;
    const response = await tab.goto(origin + path);
    expect(response?.status(), path).toBe(200);
  }

  const serverRows = (sql: string, nulls?: string) => sqlOnServer(site, sql, nulls);

  it('builds a v1 request with a filter and shows the server’s answer', async () => {
    for (const lang of ['en', 'pl'] as const) {
      await open(site.url, pageOf(lang));
      await tab.waitForSelector('[data-request-form][data-server="up"]');
      expect(await tab.textContent('[data-server-status]')).toBe(dictionaries[lang].query.formClient.serverUp);
      await tab.selectOption('[data-request-endpoint]', '/api/public/rcn/transactions');
      const fields = '[data-request-params="/api/public/rcn/transactions"]';
      await tab.fill(`${fields} [name="limit"]`, '3');
      await tab.fill(`${fields} [name="documentDateFrom"]`, '2000-01-01');
      const target = '/api/public/rcn/transactions?limit=3&documentDateFrom=2000-01-01';
      expect(await tab.textContent('[data-request-url]')).toBe(target);
      await tab.click('[data-request-send]');
      await tab.waitForSelector('[data-request-form][data-answer-status]');
      const expected = await site.json<{ items: unknown[] }>(target);
      expect(expected.items.length).toBeGreaterThan(0);
      expect(JSON.parse((await tab.textContent('[data-request-body]'))!)).toEqual(expected);
      expect(await tab.textContent('[data-request-summary]')).toContain(
        lang === 'en' ? `Items in the answer: ${expected.items.length}.` : `Elementy w odpowiedzi: ${expected.items.length}.`,
      );
      expect(problems).toEqual([]);
    }
  });

  it('fills path parameters, says what is missing, and shows a problem answer', async () => {
    await open(site.url, pageOf('en'));
    await tab.waitForSelector('[data-request-form][data-server="up"]');
    await tab.selectOption('[data-request-endpoint]', '/api/public/citybike/zones/{zoneId}');
    const fields = '[data-request-params="/api/public/citybike/zones/{zoneId}"]';
    await tab.fill(`${fields} [name="zoneId"]`, '');
    expect(await tab.textContent('[data-request-url]')).toBe('/api/public/citybike/zones/{zoneId}');
    expect(await tab.textContent('[data-request-missing]')).toBe('Fill in the required parameters: zoneId.');
    await tab.selectOption('[data-request-endpoint]', '/api/public/citybike/rides');
    const rides = '[data-request-params="/api/public/citybike/rides"]';
    await tab.fill(`${rides} [name="from"]`, '2024-05-02');
    await tab.fill(`${rides} [name="to"]`, '2024-05-01');
    await tab.click('[data-request-send]');
    await tab.waitForSelector('[data-request-form][data-answer-status="400"]');
    expect(await tab.textContent('[data-request-summary]')).toMatch(
      /^HTTP 400, application\/problem\+json\. The server answered with a problem \(RFC 9457\): /,
    );
    // A 400 the page asked for is an answer, not a failure of the page.
    expect(problems.filter((problem) => !problem.includes('/api/public/citybike/rides') && !problem.includes('status of 400'))).toEqual([]);
  });

  it('says the request needs odsnap serve on a static host, and still runs SQL there', async () => {
    for (const lang of ['en', 'pl'] as const) {
      const t = dictionaries[lang].query;
      await open(staticHost.url, pageOf(lang));
      await tab.waitForSelector('[data-request-form][data-server="down"]');
      expect(await tab.textContent('[data-server-status]')).toBe(t.formClient.serverDown);
      expect(await tab.textContent('[data-server-status]')).toContain('odsnap serve');
      expect(await tab.isDisabled('[data-request-send]')).toBe(true);
      expect(await tab.textContent('[data-request-url]')).toBe('/api/public/rcn/transactions');
    }
    const count = 'SELECT count(*) FROM citybike_rides';
    expect(await runSql(tab, count)).toEqual(await serverRows(count));
    // The one failure on a static host is the health check's own 404.
    expect(problems.filter((problem) => !problem.includes('/healthz') && !problem.includes('404 (Not Found)'))).toEqual([]);
  });

  it("turns the docs' links to server requests into plain text on a static host, and keeps them with a server", async () => {
    await open(staticHost.url, '/docs/rcn/transactions/');
    await tab.waitForSelector('a[data-server][aria-disabled="true"]');
    expect(await tab.locator('a[data-server][href]').count()).toBe(0);
    await open(site.url, '/docs/rcn/transactions/');
    await tab.waitForLoadState('networkidle');
    expect(await tab.locator('a[data-server][href]').count()).toBeGreaterThan(0);
    expect(await tab.locator('a[data-server][aria-disabled]').count()).toBe(0);
  });
});
