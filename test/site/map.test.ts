import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32, deflateSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChartData, MapLayerData } from '../../datasets/vocabulary/figure.ts';
import { launchChromium, publishedFigures, servedSite, skipWithoutChromium, watchedTab } from '../fixtures/chromium.ts';
import type { TestServer } from '../fixtures/server.ts';

/**
 * The site's maps in real Chromium, built twice from the tiny city: with `--tiles none` (the SVG
 * drawn at build time, nothing requested from elsewhere) and with a tile server on loopback, which
 * serves one generated PNG for every tile (the real tiles are out of reach offline). The register's
 * layers (its properties, and median prices by district) are checked in both.
 */

const skip = skipWithoutChromium('test/site/map.test.ts');

/** A valid 256×256 PNG of one colour (8-bit RGB, no filter), made with zlib alone. */
function tilePng(rgb: readonly [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const framed = Buffer.alloc(body.length + 8);
    framed.writeUInt32BE(data.length, 0);
    body.copy(framed, 4);
    framed.writeUInt32BE(crc32(body), body.length + 4);
    return framed;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(256, 0);
  header.writeUInt32BE(256, 4);
  header.set([8, 2, 0, 0, 0], 8); // bit depth 8, colour type RGB, deflate, no filter method, no interlace
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(256 * 3).map((_, i) => rgb[i % 3]!)]);
  const pixels = Buffer.concat(Array.from({ length: 256 }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Run in the page: what the map figure shows. */
const mapState = `(() => {
  const figure = document.querySelector('figure[data-map]');
  const svg = figure.querySelector('svg.places');
  return {
    state: figure.dataset.mapState,
    svgVisible: getComputedStyle(svg).visibility === 'visible',
    leaflet: !!figure.querySelector('.leaflet-container'),
    tiles: [...figure.querySelectorAll('img.leaflet-tile-loaded')].filter((img) => img.naturalWidth === 256).length,
    values: figure.querySelectorAll('.map-value').length,
    clustered: [...figure.querySelectorAll('.map-cluster span')].reduce((sum, span) => sum + Number(span.textContent), 0),
    markers: figure.querySelectorAll('.map-point').length,
  };
})()`;

describe.skipIf(skip)('the maps in Chromium', () => {
  let browser: Browser;
  let offline: TestServer;
  let online: TestServer;
  let tileServer: Server;
  const tileRequests: string[] = [];
  let tileOrigin: string;
  const layers = new Map<string, MapLayerData>();
  const charts = new Map<string, ChartData>();

  beforeAll(async () => {
    const png = tilePng([221, 231, 214]);
    tileServer = createServer((request, response) => {
      tileRequests.push(request.url ?? '');
      if (!/^\/\d+\/\d+\/\d+\.png$/.test(request.url ?? '')) return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
    });
    await new Promise<void>((resolve) => tileServer.listen(0, '127.0.0.1', resolve));
    tileOrigin = `http://127.0.0.1:${(tileServer.address() as AddressInfo).port}`;
    // One build per tile setting, one after the other: two at once only contend for the cores.
    const none = await servedSite('map-none', { tiles: 'none' });
    offline = none.site;
    online = (await servedSite('map-tiles', { tiles: `${tileOrigin}/{z}/{x}/{y}.png` })).site;
    for (const [name, figures] of await publishedFigures(none.tree)) {
      for (const layer of figures.map) layers.set(`${name}/${layer.name}`, layer);
      for (const chart of figures.charts) charts.set(`${name}/${chart.name}`, chart);
    }
    browser = await launchChromium();
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

  describe('with a tile server', () => {
    let tab: Page;
    let visit: (url: string, use?: (page: Page) => Promise<void>) => Promise<void>;

    beforeAll(async () => {
      // With less motion asked for, zooms and clusters jump: a tap lands where the place is.
      ({ tab, visit } = await watchedTab(browser, { hasTouch: true, viewport: { width: 1000, height: 800 }, reducedMotion: 'reduce' }));
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
        expect(await page.locator('.leaflet-control-attribution').textContent()).toContain('127.0.0.1');
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

    it('keeps the map drawn offline when no tile loads', async () => {
      await tab.route(`${tileOrigin}/**`, (route) => route.abort());
      try {
        // The aborted tiles are the point here: the page is opened without the tab's watch on requests.
        await tab.goto(`${online.url}/map/`);
        expect(await settled(tab)).toMatchObject({ state: 'offline', svgVisible: true, leaflet: false });
      } finally {
        await tab.unroute(`${tileOrigin}/**`);
      }
    });
  });
});
