import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChartData, MapLayerData } from '../../datasets/vocabulary/figure.ts';
import { launchChromium, publishedFigures, servedSite, skipWithoutChromium, watchedTab } from '../fixtures/chromium.ts';
import type { TestServer } from '../fixtures/server.ts';
import { TILE_HOST, allTilesIn, type Box, leafletLayout, mapState, overlap, tilePng, valueLabels, worstCover } from '../fixtures/map-pages.ts';

/**
 * The site's maps in real Chromium, built twice from the tiny city: with `--tiles none` (the SVG
 * drawn at build time, nothing requested from elsewhere) and with a tile server on loopback, which
 * serves one generated PNG for every tile (the real tiles are out of reach offline). The register's
 * layers (its properties, and median prices by district) are checked in both.
 */

const skip = skipWithoutChromium('test/site/map.test.ts');

describe.skipIf(skip)('the maps in Chromium', () => {
  let browser: Browser;
  let offline: TestServer;
  let online: TestServer;
  let tileServer: Server;
  const tileRequests: string[] = [];
  let tileOrigin: string;
  const layers = new Map<string, MapLayerData>();
  const charts = new Map<string, ChartData>();

  /** Every page with a map, in both languages: the city map and each mapped data set's page. */
  const mapPages = () => {
    const names = [...new Set([...layers.keys()].map((key) => key.split('/')[0]))];
    return ['', '/pl'].flatMap((prefix) => ['/map/', ...names.map((name) => `/datasets/${name}/`)].map((path) => prefix + path));
  };

  beforeAll(async () => {
    const png = tilePng([221, 231, 214]);
    tileServer = createServer((request, response) => {
      tileRequests.push(request.url ?? '');
      if (!/^\/\d+\/\d+\/\d+\.png$/.test(request.url ?? '')) return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
    });
    await new Promise<void>((resolve) => tileServer.listen(0, '127.0.0.1', resolve));
    // The tiles are OpenStreetMap's by their address, as in a default build, so the map carries its
    // credit; Chromium resolves that host to the server on loopback.
    tileOrigin = `http://${TILE_HOST}:${(tileServer.address() as AddressInfo).port}`;
    // One build per tile setting, one after the other: two at once only contend for the cores.
    const none = await servedSite('map-none', { tiles: 'none' });
    offline = none.site;
    online = (await servedSite('map-tiles', { tiles: `${tileOrigin}/{z}/{x}/{y}.png` })).site;
    for (const [name, figures] of await publishedFigures(none.tree)) {
      for (const layer of figures.map) layers.set(`${name}/${layer.name}`, layer);
      for (const chart of figures.charts) charts.set(`${name}/${chart.name}`, chart);
    }
    browser = await launchChromium([`--host-resolver-rules=MAP ${TILE_HOST} 127.0.0.1`]);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await offline?.close();
    await online?.close();
    await new Promise((resolve) => tileServer?.close(resolve));
  });

  it('publishes the register’s properties and its median prices by district', () => {
    const properties = layers.get('rcn/properties')!;
    const districts = layers.get('rcn/district-prices')!;
    expect(properties.places.length).toBeGreaterThan(100);
    expect(districts.value?.unit.en).toBe('PLN/m²');
    expect(districts.places.length).toBeGreaterThan(10);
    expect(districts.places.map((place) => place.name)).toContain('Śródmieście');
    for (const place of districts.places) {
      expect(place.value, place.name).toBeGreaterThan(1000);
      expect(place.count, place.name).toBeGreaterThan(0);
    }
    // The map's medians are the register analysis's, district for district.
    const byDistrict = charts.get('rcn/market-by-district')!;
    const analysed = new Map(byDistrict.rows.filter((row) => row.panel === 'premises-price-per-m2' && row.y !== null).map((row) => [row.x, row.y]));
    expect(new Map(districts.places.map((place) => [place.id, place.value]))).toEqual(analysed);
  });

  it('draws the map offline with tiles set to none: no tile requested, places named on a tap', async () => {
    const { tab, visit } = await watchedTab(browser, { hasTouch: true });
    const elsewhere: string[] = [];
    tab.on('request', (request) => {
      if (!request.url().startsWith(offline.url) && !request.url().startsWith('data:')) elsewhere.push(request.url());
    });
    await visit(`${offline.url}/map/`, async (page) => {
      await page.waitForLoadState('networkidle');
      expect(await page.evaluate(mapState)).toMatchObject({ state: 'offline', svgVisible: true, leaflet: false });
      const properties = page.locator('g.layer[data-layer="rcn/properties"] > *');
      expect(await properties.count()).toBe(layers.get('rcn/properties')!.places.length);
      const districts = page.locator('g.layer[data-layer="rcn/district-prices"] > circle');
      expect(await districts.count()).toBe(layers.get('rcn/district-prices')!.places.length);
      expect(await page.locator('g.value-labels text').count()).toBe(layers.get('rcn/district-prices')!.places.length);
      await districts.first().tap();
      expect(await page.locator('[data-map-picked]').textContent()).toMatch(/^[^:]+: [\d,]+ PLN\/m² · premises sold alone: \d+$/);
    });
    expect(elsewhere).toEqual([]);
    expect(tileRequests).toEqual([]);
    await tab.close();
  });

  it('links a data set’s page and the map both ways', async () => {
    const { tab, visit } = await watchedTab(browser);
    await visit(`${offline.url}/pl/datasets/rcn/`, async (page) => {
      expect(await page.locator('dl.facts').textContent()).not.toContain('nieokreślony');
      expect(await page.getAttribute('a[data-city-map]', 'href')).toBe('/pl/map/#rcn');
    });
    await visit(`${offline.url}/pl/map/#rcn`, async (page) => {
      expect(await page.locator('#rcn a').getAttribute('href')).toBe('/pl/datasets/rcn/');
      expect(await page.locator('figure[data-map] .legend a[href="/pl/datasets/rcn/"]').count()).toBe(2);
    });
    await tab.close();
  });

  it('writes each district’s median inside its opaque circle, clear of every dot on the register’s page, in both languages', async () => {
    const { tab, visit } = await watchedTab(browser, { viewport: { width: 1280, height: 900 } });
    // The city map keeps the other data sets' places over the circles: a place must not vanish under a figure.
    for (const [path, clear] of [
      ['/datasets/rcn/', true],
      ['/pl/datasets/rcn/', true],
      ['/map/', false],
      ['/pl/map/', false],
    ] as const)
      await visit(`${offline.url}${path}`, async (page) => {
        const labels = await page.evaluate<{ label: string; beyond: number; covers: string[]; opacity: number }[]>(valueLabels);
        expect(labels, path).toHaveLength(layers.get('rcn/district-prices')!.places.length);
        expect(
          labels.filter((label) => label.beyond > 0 || label.opacity < 1 || (clear && label.covers.length)),
          path,
        ).toEqual([]);
      });
    await tab.close();
  });

  describe('with a tile server', () => {
    let visit: (url: string, use?: (page: Page) => Promise<void>) => Promise<void>;

    beforeAll(async () => {
      // With less motion asked for, zooms and clusters jump: a tap lands where the place is.
      ({ visit } = await watchedTab(browser, { hasTouch: true, viewport: { width: 1000, height: 800 }, reducedMotion: 'reduce' }));
    });

    /** Waits for the map to settle on tiles or on the offline drawing, and says what it shows. */
    const settled = async (page: Page) => {
      await page.waitForFunction(`document.querySelector('figure[data-map]').dataset.mapState !== 'drawn'`);
      await page.waitForLoadState('networkidle');
      return page.evaluate<Record<string, unknown>>(mapState);
    };

    it('shows the tiles under the places once they load, the SVG hidden under them', async () => {
      tileRequests.length = 0;
      await visit(`${online.url}/map/`, async (page) => {
        const shown = await settled(page);
        expect(shown).toMatchObject({ state: 'tiles', svgVisible: false, leaflet: true });
        expect(shown.tiles).toBeGreaterThan(0);
        expect(await page.locator('.leaflet-control-attribution').textContent()).toContain('© OpenStreetMap contributors');
      });
      expect(tileRequests.length).toBeGreaterThan(0);
      expect(tileRequests.every((url) => /^\/\d+\/\d+\/\d+\.png$/.test(url))).toBe(true);
    });

    it('puts the register on the map: every property, clustered where they crowd, and every district’s median', async () => {
      await visit(`${online.url}/datasets/rcn/`, async (page) => {
        const shown = await settled(page);
        expect(shown.state).toBe('tiles');
        expect(shown.values).toBe(layers.get('rcn/district-prices')!.places.length);
        expect(shown.clustered).toBeGreaterThan(0);
        expect((shown.clustered as number) + (shown.markers as number)).toBe(layers.get('rcn/properties')!.places.length);
      });
    });

    it('names a district’s median in a popup on a tap', async () => {
      await visit(`${online.url}/datasets/rcn/`, async (page) => {
        await settled(page);
        await page.locator('.map-value').first().tap();
        const popup = page.locator('.leaflet-popup-content');
        await popup.waitFor();
        const names = layers.get('rcn/district-prices')!.places.map((place) => place.name);
        expect(names).toContain(await popup.locator('.map-popup-name').textContent());
        expect(await popup.textContent()).toContain('PLN/m²');
        expect(await popup.locator('a').getAttribute('href')).toBe('/datasets/rcn/');
      });
    });

    it('opens crowded places by tapping their cluster, then names a place in a popup', async () => {
      await visit(`${online.url}/datasets/rcn/`, async (page) => {
        await settled(page);
        // The district circles are a layer of their own: hidden, they leave the properties to tap.
        await page.locator('.leaflet-control-layers').hover();
        await page.locator('.leaflet-control-layers-overlays label', { hasText: 'Median price' }).locator('input').uncheck();
        await page.mouse.move(1, 1); // the layer list folds up again, uncovering the places under it
        for (let zooms = 0; zooms < 8 && !(await page.locator('.map-point').count()); zooms++) {
          await page.locator('.map-cluster').first().tap();
          await page.waitForLoadState('networkidle');
        }
        // A place under the map's controls cannot be tapped: the first one in the open is.
        const open = await page.locator('.map-point').evaluateAll((points) =>
          points.findIndex((point) => {
            const box = point.getBoundingClientRect();
            return point.contains(document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2));
          }),
        );
        expect(open).toBeGreaterThanOrEqual(0);
        await page.locator('.map-point').nth(open).tap();
        const name = await page.locator('.leaflet-popup-content .map-popup-name').textContent();
        expect(layers.get('rcn/properties')!.places.map((place) => place.name)).toContain(name);
      });
    });

    it('lays every map out in its final box, on a phone and a desktop: tiles all over it, the places in its middle, the scale bar clear of the credit', async () => {
      const wrong: string[] = [];
      for (const viewport of [
        { width: 375, height: 812 },
        { width: 1280, height: 900 },
      ]) {
        const phone = viewport.width < 600;
        const sized = await watchedTab(browser, { viewport, hasTouch: true, isMobile: phone, reducedMotion: 'reduce' });
        for (const path of mapPages())
          await sized.visit(`${online.url}${path}`, async (page) => {
            expect((await settled(page)).state).toBe('tiles');
            await page.waitForFunction(allTilesIn);
            const layout = await page.evaluate<{ bare: number[][]; offset: [number, number]; scale: Box; attribution: Box; markers: Box[] }>(leafletLayout);
            const where = `${path} at ${viewport.width} px`;
            if (layout.bare.length) wrong.push(`${where}: no tile at ${JSON.stringify(layout.bare)}`);
            if (Math.max(...layout.offset.map(Math.abs)) > 24) wrong.push(`${where}: places ${JSON.stringify(layout.offset)} px off the middle`);
            if (overlap(layout.scale, layout.attribution)) wrong.push(`${where}: the credit covers the scale bar`);
          });
        await sized.tab.close();
      }
      expect(wrong).toEqual([]);
    });

    it('starts the city map on a phone with its places and clusters apart', async () => {
      const phone = await watchedTab(browser, { viewport: { width: 375, height: 812 }, hasTouch: true, isMobile: true, reducedMotion: 'reduce' });
      for (const path of ['/map/', '/pl/map/'])
        await phone.visit(`${online.url}${path}`, async (page) => {
          expect((await settled(page)).state).toBe('tiles');
          const { markers } = await page.evaluate<{ markers: Box[] }>(leafletLayout);
          expect(markers.length, path).toBeGreaterThan(3);
          // Two markers may touch, not hide each other's number.
          expect(worstCover(markers), path).toBeLessThan(0.25);
        });
      await phone.tab.close();
    });

    it('keeps the map drawn offline, and raises no error, on every map page in either language when no tile loads', async () => {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
      // Chromium reports each tile it could not fetch as a console error of its own, at the tile's address: that is not the page's.
      page.on('console', (message) => {
        if (message.type() === 'error' && !message.location().url.startsWith(tileOrigin)) errors.push(`console: ${message.text()}`);
      });
      await page.route(`${tileOrigin}/**`, (route) => route.abort());
      try {
        for (const path of mapPages()) {
          errors.length = 0;
          await page.goto(`${online.url}${path}`);
          expect(await settled(page), path).toMatchObject({ state: 'offline', svgVisible: true, leaflet: false });
          // Leaflet's timers after the last tile (a fade, a prune 250 ms on) have run by now.
          await page.waitForTimeout(500);
          expect(errors, path).toEqual([]);
        }
      } finally {
        await page.close();
      }
    });
  });
});
