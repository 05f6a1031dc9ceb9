import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasets } from '../../datasets/index.ts';
import { defaultUntil } from '../../datasets/vocabulary/sample.ts';
import { buildStatic } from '../../scripts/static/build-static.ts';
import { generateSample } from '../../scripts/sample/generate.ts';
import { browsedSite, skipWithoutChromium } from '../fixtures/chromium.ts';
import {
  dictionaries,
  manualQueries,
  pageOf,
  pageRowsAll,
  resultCaptions,
  runSql,
  sameBarRounding,
  shownResult,
  sqlOnServer,
  startStaticHost,
} from '../fixtures/query-page.ts';
import type { TestServer } from '../fixtures/server.ts';
import { SCREENSHOTS } from '../fixtures/site-pages.ts';
import { tempDir } from '../fixtures/tiny.ts';

/**
 * The query page's SQL in real Chromium: DuckDB-WASM over the tree's Parquet files, checked
 * against the server's /api/sql, what it fetches of them, and the CSV download.
 */

const skip = skipWithoutChromium('test/site/query-page-sql.test.ts');

describe.skipIf(skip)('the query page in Chromium', () => {
  let site: TestServer;
  let tree: string;
  let browser: Browser;
  let tab: Page;
  let problems: string[];
  let close: (() => Promise<void>) | undefined;
  const types = new Map<string, string>(); // path → content-type, of everything the pages loaded
  const loadedHere = new Set<string>(); // paths the current page loaded

  beforeAll(async () => {
    ({ tree, site, browser, tab, problems, close } = await browsedSite('query-page', {
      tab: { acceptDownloads: true },
      onResponse: (response) => {
        types.set(new URL(response.url()).pathname, response.headers()['content-type'] ?? '');
        loadedHere.add(new URL(response.url()).pathname);
      },
    }));
  }, 300_000);

  afterAll(async () => {
    await close?.();
  });

  async function open(origin: string, path: string): Promise<void> {
    problems.length = 0;
    loadedHere.clear();
    const response = await tab.goto(origin + path);
    expect(response?.status(), path).toBe(200);
  }

  const serverRows = (sql: string, nulls?: string) => sqlOnServer(site, sql, nulls);

  for (const lang of ['en', 'pl'] as const) {
    it(`runs SQL in the browser in ${lang === 'en' ? 'English' : 'Polish'} and shows the rows /api/sql gives`, async () => {
      const t = dictionaries[lang].query;
      await open(site.url, pageOf(lang));
      expect(await tab.getAttribute('html', 'lang')).toBe(lang);
      expect(await tab.locator('h1').textContent()).toBe(t.title);
      // Nothing of DuckDB-WASM is fetched before the first run.
      expect([...loadedHere].filter((path) => /duckdb/.test(path))).toEqual([]);
      expect(await tab.textContent('[data-sql-status]')).toBe(t.sqlClient.idle);

      const count = 'SELECT count(*) FROM citybike_rides';
      expect(await runSql(tab, count)).toEqual(await serverRows(count));
      const zones = 'SELECT id, name, active_from, temporary, lat FROM citybike_zones ORDER BY id';
      expect(await runSql(tab, zones, 'keys')).toEqual(await serverRows(zones));
      expect(await tab.textContent('[data-sql-status]')).toMatch(lang === 'en' ? /^Rows: \d+\. Time: \d+ ms\.$/ : /^Wiersze: \d+\. Czas: \d+ ms\.$/);
      expect(problems).toEqual([]);
    });
  }

  it('loads the one DuckDB-WASM bundle from the site itself, with its media types', () => {
    const loaded = [...types].filter(([path]) => /duckdb/.test(path));
    expect(loaded.find(([path]) => path.endsWith('.wasm'))?.[1]).toBe('application/wasm');
    expect(loaded.find(([path]) => /duckdb-browser-eh\.worker.*\.js$/.test(path))?.[1]).toMatch(/^text\/javascript/);
    expect(loaded.every(([path]) => path.startsWith('/_astro/'))).toBe(true);
  });

  it('runs queries over other tables: decimals, days, lists and every table’s rows as the server gives them', async () => {
    await open(site.url, pageOf('en'));
    const sql =
      'SELECT transaction_gml_id, document_date, gross_price, transaction_type_code, property_ids FROM rcn_transactions ORDER BY transaction_gml_id LIMIT 5';
    const rows = await runSql(tab, sql);
    expect(rows).toHaveLength(6);
    expect(rows).toEqual(await serverRows(sql));
    const readings = 'SELECT counter_id, count(*) AS readings, sum(value) AS total FROM bike_counter_readings GROUP BY counter_id ORDER BY counter_id';
    expect(await runSql(tab, readings)).toEqual(await serverRows(readings));
    // Every table of the catalogue is there, with all its rows.
    const catalogue = await site.json<{ tables: { sqlName: string }[] }>('/downloads/catalogue.json');
    const counts =
      catalogue.tables.map((table) => `SELECT '${table.sqlName}' AS name, count(*) AS rows FROM ${table.sqlName}`).join(' UNION ALL ') + ' ORDER BY name';
    expect(await runSql(tab, counts)).toEqual(await serverRows(counts));
    expect(problems).toEqual([]);
  });

  it('answers the query page’s examples and the manual’s queries as /api/sql does, time functions included', async () => {
    await open(site.url, pageOf('en'));
    const examples = await tab
      .locator('[data-sql-example]')
      .evaluateAll((buttons) => buttons.map((button) => (button as unknown as { dataset: { sqlInsert: string } }).dataset.sqlInsert));
    const manual = await manualQueries();
    expect(manual).toHaveLength(4);
    const queries = [...examples, ...manual];
    expect(queries.length).toBeGreaterThanOrEqual(10);
    for (const used of ["date_trunc('", 'year(', '::DATE', 'strftime(']) expect(examples.join('\n')).toContain(used);
    // The queries, each failing before (no ICU in DuckDB-WASM).
    queries.push(
      "SELECT date_trunc('day', started_at), count(*) FROM citybike_rides GROUP BY 1 ORDER BY 1",
      'SELECT year(read_at) AS year, count(*) FROM air_quality_readings GROUP BY 1 ORDER BY 1',
      "SELECT read_at::DATE AS day, strftime(read_at, '%Y-%m') AS month, sensor_code, avg(value) FROM air_quality_readings GROUP BY ALL ORDER BY ALL LIMIT 50",
    );
    const sortedUnlessOrdered = (sql: string, rows: string[][]) =>
      /ORDER BY/i.test(sql) ? rows : [rows[0]!, ...rows.slice(1).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))];
    for (const sql of queries) {
      const inPage = await pageRowsAll(tab, sql);
      const onServer = await serverRows(sql, '');
      expect(onServer.length, sql).toBeGreaterThan(1);
      const [page, server] = [sortedUnlessOrdered(sql, inPage), sortedUnlessOrdered(sql, onServer)];
      expect(sameBarRounding(page, server), sql).toEqual(server);
    }
    expect(problems).toEqual([]);
  }, 300_000);

  it('reads a month of one counter at small scale in at most 5% of the table’s bytes, and counts rows from the catalogue alone', async () => {
    // The tiny city has one file per counter and year, a third of the table: the small one (62
    // files) is the scale the figure means. Its sample and downloads (no site) take ~25 s; the
    // pages come from the tiny tree, the downloads from the small one.
    const dataDir = await tempDir('query-page-small');
    await generateSample({ dataDir, datasets, settings: { scale: 'small', seed: 1, until: defaultUntil } });
    const small = join(await tempDir('query-page-small-tree'), 'dist');
    await buildStatic({ dataDir, out: small, datasets, site: false });
    const host = await startStaticHost(tree, small);
    const catalogue = JSON.parse(await readFile(join(small, 'downloads/catalogue.json'), 'utf8')) as {
      tables: { sqlName: string; rows: number; files: { url: string; bytes: number; rows: number; partition: Record<string, string>; max: string }[] }[];
    };
    const readings = catalogue.tables.find((table) => table.sqlName === 'bike_counter_readings')!;
    const tableBytes = readings.files.reduce((sum, file) => sum + file.bytes, 0);
    const fullest = [...readings.files].sort((a, b) => b.rows - a.rows)[0]!;
    const month = fullest.max.slice(0, 7);

    const page = await browser.newPage({ acceptDownloads: true });
    const fetched: { url: string; range: string; bytes: number }[] = [];
    const failed: string[] = [];
    page.on('requestfinished', (request) => {
      void (async () => {
        const response = await request.response();
        if (!new URL(request.url()).pathname.startsWith('/downloads/')) return;
        fetched.push({
          url: new URL(request.url()).pathname,
          range: (await request.allHeaders()).range ?? '',
          bytes: (await request.sizes()).responseBodySize || Number(response?.headers()['content-length'] ?? 0),
        });
      })();
    });
    page.on('requestfailed', (request) => failed.push(`${request.url()} ${request.failure()?.errorText}`));
    try {
      await page.goto(`${host.url}/query/`);
      const sql = `SELECT read_at::DATE AS day, count(*) AS readings, sum(value) AS total FROM bike_counter_readings WHERE counter_id = '${fullest.partition.counter}' AND read_at >= '${month}-01' AND read_at < '${month}-01'::DATE + INTERVAL 1 MONTH GROUP BY 1 ORDER BY 1`;
      const rows = await runSql(page, sql);
      expect(rows.length).toBeGreaterThan(20);
      await page.waitForTimeout(500); // the last requests' sizes are read after they finish
      const parquet = () => fetched.filter((entry) => entry.url.endsWith('.parquet'));
      const bytes = parquet().reduce((sum, entry) => sum + entry.bytes, 0);
      expect(bytes, JSON.stringify(parquet())).toBeGreaterThan(0);
      expect(bytes / tableBytes, `${bytes} of ${tableBytes} bytes`).toBeLessThanOrEqual(0.05);
      expect(parquet().every((entry) => entry.url.startsWith('/downloads/bike-counter/readings/') && entry.range.startsWith('bytes='))).toBe(true);
      // Nothing fetched twice.
      const asked = parquet().map((entry) => `${entry.url} ${entry.range}`);
      expect(new Set(asked).size).toBe(asked.length);

      // count(*) of the largest table: the catalogue's row counts, no Parquet file read.
      fetched.length = 0;
      const largest = [...catalogue.tables].sort((a, b) => b.rows - a.rows)[0]!;
      expect(await runSql(page, `SELECT count(*) AS rows FROM ${largest.sqlName}`)).toEqual([['rows'], [String(largest.rows)]]);
      await page.waitForTimeout(500);
      expect(parquet()).toEqual([]);
      expect(failed).toEqual([]);
    } finally {
      await page.close();
      await new Promise((closed) => host.server.close(closed));
    }
  }, 400_000);

  it('shows a failing query in the page, with no console error', async () => {
    await open(site.url, pageOf('en'));
    await tab.fill('[data-sql-text]', 'SELECT * FROM no_such_table');
    await tab.click('[data-sql-run]');
    await tab.waitForSelector('[data-sql-error]:not([hidden])', { timeout: 60_000 });
    expect(await tab.textContent('[data-sql-error]')).toMatch(/^The query failed: .*no_such_table/s);
    expect(await tab.getAttribute('[data-sql-error]', 'role')).toBe('alert');
    // The page goes on: the next query runs.
    expect((await runSql(tab, 'SELECT 1 AS one'))[1]).toEqual(['1']);
    expect(problems).toEqual([]);
  });

  it('keeps what the user SETs and creates in the console: queries are planned on a connection of their own', async () => {
    await open(site.url, pageOf('en'));
    /** A statement with no rows to show: it runs, with no error. */
    const runStatement = async (sql: string) => {
      await tab.fill('[data-sql-text]', sql);
      await tab.click('[data-sql-run]');
      await tab.waitForSelector('[data-sql-console]:not([aria-busy])', { timeout: 60_000 });
      expect(await tab.isVisible('[data-sql-error]'), sql).toBe(false);
    };
    // A schema of the user's own, first on their search path (which planning used to reset).
    await runStatement('CREATE SCHEMA mine; CREATE TABLE mine.picked AS SELECT 1 AS one');
    await runStatement("SET search_path = 'mine,main'");
    const count = 'SELECT count(*) AS rides FROM citybike_rides';
    expect(await runSql(tab, count)).toEqual(await serverRows(count));
    expect(await runSql(tab, "SELECT current_setting('search_path') AS path")).toEqual([['path'], ['mine,main']]);
    // The optimizers: planning turns pruning off for the plan alone, and leaves the user's own setting as it was.
    await runStatement("SET disabled_optimizers = 'join_order'");
    expect(await runSql(tab, count)).toEqual(await serverRows(count));
    expect(await runSql(tab, "SELECT current_setting('disabled_optimizers') AS off")).toEqual([['off'], ['join_order']]);
    // A TEMP table only the user's connection knows, joined to a table not loaded yet: its rows are all read.
    await runStatement('CREATE TEMP TABLE chosen AS SELECT 1 AS one');
    const joined = 'SELECT count(*) AS zones FROM citybike_zones, chosen, picked';
    expect(await runSql(tab, joined)).toEqual(await serverRows('SELECT count(*) AS zones FROM citybike_zones'));
    expect(problems).toEqual([]);
  });

  it('downloads the result as the CSV /api/sql writes', async () => {
    await open(site.url, pageOf('en'));
    const sql = 'SELECT id, name FROM citybike_zones ORDER BY id';
    await runSql(tab, sql);
    const [download] = await Promise.all([tab.waitForEvent('download'), tab.click('[data-sql-download]')]);
    expect(download.suggestedFilename()).toBe('query.csv');
    const csv = await readFile((await download.path())!, 'utf8');
    expect(csv).toBe(await (await site.fetch(`/api/sql?q=${encodeURIComponent(sql)}&format=csv`)).text());
    expect(problems).toEqual([]);
  });

  it('puts a query over a table in the editor from the table list', async () => {
    await open(site.url, pageOf('pl'));
    await tab.click('[data-sql-table="bike_counter_readings"]');
    expect(await tab.inputValue('[data-sql-text]')).toBe('SELECT * FROM bike_counter_readings LIMIT 100;');
    expect(await tab.evaluate('document.activeElement?.id')).toBe('sql-query');
    const columns = await tab.locator('[data-sql-table="bike_counter_readings"] ~ details tbody th').allTextContents();
    expect(columns).toEqual(Object.keys(datasets.find((d) => d.name === 'bike-counter')!.tables.readings!.columns));
  });

  it('names each example by the table its query reads, in both languages', async () => {
    for (const lang of ['en', 'pl'] as const) {
      await open(site.url, pageOf(lang));
      const examples = await tab.locator('[data-sql-example]').evaluateAll((buttons) =>
        buttons.map((button) => {
          const { textContent, dataset } = button as unknown as { textContent: string; dataset: { sqlExampleTable: string; sqlInsert: string } };
          return { label: textContent, table: dataset.sqlExampleTable, query: dataset.sqlInsert };
        }),
      );
      expect(examples.length).toBeGreaterThan(3);
      for (const example of examples) {
        expect(example.label, example.query).toContain(example.table);
        expect(example.query, example.label).toMatch(new RegExp(`\\bFROM ${example.table}\\b`));
      }
    }
  });

  it('shows a result on a phone a row per block, each value under its column, the caption across, its rows counted in the language', async () => {
    await tab.setViewportSize({ width: 375, height: 812 });
    try {
      for (const lang of ['en', 'pl'] as const) {
        await open(site.url, pageOf(lang));
        for (const [rows, caption] of Object.entries(resultCaptions[lang])) {
          // An empty text is a value: unlike an empty cell of the docs, it keeps its label.
          await runSql(tab, `SELECT range AS number, 'a letter' AS letter, '' AS nothing FROM range(${rows})`);
          expect(await tab.textContent('[data-sql-result] caption')).toBe(caption);
        }
        const shown = await tab.evaluate<{ region: number; caption: number; cells: (string | null)[][] }>(shownResult);
        expect(shown.caption, 'the caption spans the result').toBeGreaterThan(0.9 * shown.region);
        expect(shown.cells).toEqual(Array(2).fill(['number', 'letter', 'nothing', '"number: "', '"letter: "', '"nothing: "']));
      }
    } finally {
      await tab.setViewportSize({ width: 1280, height: 720 });
    }
    expect(problems).toEqual([]);
  });

  it('saves a screenshot of the query page', async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    await tab.setViewportSize({ width: 1280, height: 900 });
    await open(site.url, pageOf('en'));
    await runSql(tab, 'SELECT started_zone_id, count(*) AS rides, round(avg(distance), 2) AS average_distance FROM citybike_rides GROUP BY 1 ORDER BY 2 DESC');
    await tab.screenshot({ path: join(SCREENSHOTS, 'query-en.png'), fullPage: true });
    expect(problems).toEqual([]);
  });
});
