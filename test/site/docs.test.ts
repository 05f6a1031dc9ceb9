import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { languages } from '../../core/text.ts';
import { datasets } from '../../datasets/index.ts';
import { endpointDocs } from '../../site/docs/endpoint-docs.ts';
import { en } from '../../site/i18n/en.ts';
import { pl } from '../../site/i18n/pl.ts';
import { manualPages, renderManualPage } from '../../site/manual/manual.ts';
import { localePath, sitePages } from '../../site/routes.ts';
import { parking } from '../fixtures/parking/index.ts';

const withParking = [...datasets, parking];

describe('the site’s pages', () => {
  it('give every endpoint of every registered data set a docs page in both languages, a fifth data set included', () => {
    const pages = sitePages(withParking);
    for (const dataset of withParking) {
      for (const endpoint of dataset.endpoints) {
        const found = pages.filter((page) => page.view.kind === 'endpoint-docs' && page.view.endpoint === endpoint);
        expect(found.map((page) => page.lang).sort(), endpoint.fullPath).toEqual(['en', 'pl']);
      }
    }
    expect(pages.map((page) => localePath(page.lang, page.route))).toContain('pl/docs/parking/car-parks.carParkId.occupancy/');
  });

  it('refuses a data set whose pages would shadow a fixed page', () => {
    expect(() => sitePages([...datasets, { ...parking, name: 'openapi', endpoints: [] }])).toThrow('two pages of the site want /docs/openapi/');
  });
});

describe('the manual on the site', () => {
  const files = readdirSync('docs').filter((name) => name.endsWith('.md'));
  const hrefIn = (lang: (typeof languages)[number]) => (route: string) => `/${localePath(lang, route)}`;

  it('publishes every file of docs/ as a page in both languages, its contents at /manual/', () => {
    const pages = sitePages(datasets).filter((page) => page.view.kind === 'manual');
    for (const file of files) {
      const found = pages.filter((page) => page.view.kind === 'manual' && page.view.page.file === file);
      expect(found.map((page) => page.lang).sort(), file).toEqual(['en', 'pl']);
    }
    expect(pages).toHaveLength(files.length * languages.length);
    const paths = pages.map((page) => localePath(page.lang, page.route));
    expect(paths).toEqual(expect.arrayContaining(['manual/', 'pl/manual/', 'manual/commands/', 'pl/manual/commands/']));
  });

  it('leads each link between files of the manual to their pages, in the page’s language, anchors kept', async () => {
    for (const page of manualPages) {
      for (const lang of languages) {
        const { html } = await renderManualPage(page, hrefIn(lang));
        expect(html, `${lang} ${page.file}`).not.toMatch(/href="(?![a-z]+:)[^"]*\.md[#"]/);
        expect(html.match(/<h1/g), page.file).toHaveLength(1);
      }
    }
    const commands = manualPages.find((page) => page.file === 'commands.md')!;
    const { html } = await renderManualPage(commands, hrefIn('pl'));
    expect(html).toContain('href="/pl/manual/pulling/#limits-an-upstream-cannot-lift"');
    expect(html).toContain('href="#odsnap-prune"');
    expect(html).toContain('id="odsnap-prune"');
  });

  it('fails the build on a link to a file the site does not publish', async () => {
    const page = { ...manualPages[0]!, markdown: '# A page\n\nSee [the licence](../LICENSE).' };
    await expect(renderManualPage(page, hrefIn('en'))).rejects.toThrow('links to ../LICENSE, which is not a page of the manual');
  });
});

describe('endpoint docs', () => {
  const { docs } = endpointDocs(withParking);

  it('describe every parameter and every response field in English and Polish', () => {
    for (const doc of docs.values()) {
      for (const param of doc.params)
        expect([param.description, param['x-description-pl']].every(Boolean), `${doc.endpoint.fullPath} ${param.name}`).toBe(true);
      for (const field of doc.response.fields) expect(field.description?.en && field.description.pl, `${doc.endpoint.fullPath} ${field.name}`).toBeTruthy();
    }
  });

  it('read types, limits and defaults from the parameter schemas', () => {
    const rides = docs.get('/api/public/citybike/rides')!;
    const byName = Object.fromEntries(rides.params.map((param) => [param.name, param]));
    expect(byName.from).toMatchObject({ in: 'query', required: true, type: 'string (date)' });
    expect(byName.pageSize).toMatchObject({ required: false, type: 'integer', limits: { minimum: 1, maximum: 500, default: '100' } });
    expect(byName.timezone!.limits.default).toBe('UTC');
    const counter = docs.get('/api/public/bike-counter/counters/{counterId}/readings')!;
    expect(counter.params[0]).toMatchObject({ name: 'counterId', in: 'path', required: true });
  });

  it('name the SQL views as odsnap sql does', () => {
    expect(docs.get('/api/public/rcn/transactions')!.sql.views.map((view) => view.name)).toEqual(['rcn_transactions']);
    expect(docs.get('/api/public/parking/car-parks/{carParkId}/occupancy')!.sql.views.map((view) => view.name)).toEqual([
      'parking_occupancy',
      'parking_car_parks',
    ]);
  });

  it('link only files and requests that need no values when no static tree is given', () => {
    const transactions = docs.get('/api/public/rcn/transactions')!.example;
    expect(transactions).toMatchObject({ file: '/api/public/rcn/transactions.json', request: '/api/public/rcn/transactions', requestIsLive: true });
    const rides = docs.get('/api/public/citybike/rides')!.example;
    expect(rides).toMatchObject({ file: undefined, request: '/api/public/citybike/rides?from={from}&to={to}', requestIsLive: false });
  });
});

describe('the site’s dictionaries', () => {
  it('have the same words in both languages', () => {
    const shape = (value: unknown): unknown =>
      value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, shape(inner)])) : typeof value;
    expect(shape(pl)).toEqual(shape(en));
  });
});
