/**
 * npm run bench:tables -- --tree DIR [--downloads DIR] [--first] — the site's table pages (/datasets/<data set>/<table>/) in
 * Chromium over a static tree `odsnap build` wrote with its site (e.g. of the city sample), served
 * from loopback as a static host would: for the first view of every table (the page opened with no
 * view in its address) and for a few sorted and filtered views of the largest ones, the time until
 * the rows are shown (from navigation, in a fresh tab; a wide table's columns out of sight are read
 * just after) and until every column of them is in, and what was fetched of the downloads
 * (requests and bytes) and of everything (the page, its scripts, DuckDB-WASM when a view needs it).
 * A first view is opened in a browser context of its own, as a first visit (nothing cached: the
 * page, its scripts and the catalogue count); it never loads DuckDB-WASM. The other views share
 * one context, DuckDB-WASM and what earlier views fetched coming from its cache, as for a
 * visitor's later views. `--downloads`: another tree's downloads under the same pages (a site built over the
 * tiny sample serves the city's). Results go to bench/results/table-pages-<time>.json; a markdown table is printed.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { argument, hostStatic } from './browser-host.ts';

const treeDir = argument('--tree');
if (!treeDir) throw new Error('usage: npm run bench:tables -- --tree DIR [--downloads DIR] (a tree odsnap build wrote with its site)');
// The pages do not depend on the data's size: a site built over a small tree can serve a large tree's downloads.
const downloadsDir = argument('--downloads') ?? treeDir;

const server = await hostStatic(treeDir, downloadsDir);
const { origin } = server;

const catalogue = JSON.parse(await readFile(join(downloadsDir, 'downloads/catalogue.json'), 'utf8')) as {
  tables: { dataset: string; table: string; sqlName: string; rows: number; files: { bytes: number }[] }[];
};
const pageOf = (dataset: string, table: string) => `/datasets/${dataset}/${table}/`;
const views: { name: string; path: string; tableBytes: number; first?: boolean }[] = [
  ...catalogue.tables.map((table) => ({
    first: true,
    name: `first view of ${table.sqlName} (${table.rows.toLocaleString('en')} rows)`,
    path: pageOf(table.dataset, table.table),
    tableBytes: table.files.reduce((sum, file) => sum + file.bytes, 0),
  })),
];
// `--first`: the first views alone (no DuckDB-WASM is loaded for them).
const firstOnly = process.argv.includes('--first');
const bytesOf = (sqlName: string) => catalogue.tables.find((table) => table.sqlName === sqlName)!.files.reduce((sum, file) => sum + file.bytes, 0);
if (!firstOnly)
  views.push(
    {
      name: 'rides, latest first (sorted by started_at, the files’ order)',
      path: '/datasets/citybike/rides/?sort=-started_at',
      tableBytes: bytesOf('citybike_rides'),
    },
    { name: 'transactions, latest first (document_date)', path: '/datasets/rcn/transactions/?sort=-document_date', tableBytes: bytesOf('rcn_transactions') },
    { name: 'transactions, dearest first (gross_price)', path: '/datasets/rcn/transactions/?sort=-gross_price', tableBytes: bytesOf('rcn_transactions') },
    {
      name: 'transactions on the primary market, page 3',
      path: '/datasets/rcn/transactions/?eq.market_type_value=rynekPierwotny&page=3',
      tableBytes: bytesOf('rcn_transactions'),
    },
    {
      name: 'properties, latest first (first_document_date)',
      path: '/datasets/rcn/properties/?sort=-first_document_date',
      tableBytes: bytesOf('rcn_properties'),
    },
    {
      name: 'readings of one station (station_id)',
      path: '/datasets/air-quality/readings/?eq.station_id=warszawa-al-jana-pawla-ii',
      tableBytes: bytesOf('air_quality_readings'),
    },
  );

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
const context: BrowserContext = await browser.newContext();
// DuckDB-WASM fetched once into the browser's cache (a sorted view loads it).
if (!firstOnly) {
  const warm = await context.newPage();
  await warm.goto(`${origin}/datasets/citybike/zones/?sort=id`);
  await warm.waitForFunction(`document.querySelector('[data-explorer-status]')?.dataset.total !== undefined`, null, { timeout: 120_000 });
  await warm.close();
}

interface Figures {
  readonly name: string;
  readonly path: string;
  readonly shownMs: number;
  readonly completeMs: number;
  readonly total: number;
  readonly requests: number;
  readonly bytes: number;
  readonly allBytes: number;
  readonly tableBytes: number;
  readonly error: string | null;
}
const results: Figures[] = [];
for (const view of views) {
  // A first view in a browser of its own, as a first visit: nothing cached, the page's scripts and the catalogue counted.
  const own = view.first ? await browser.newContext() : undefined;
  const page = await (own ?? context).newPage();
  const fetched: Promise<{ downloads: boolean; bytes: number }>[] = [];
  page.on('requestfinished', (request) => {
    const downloads = new URL(request.url()).pathname.startsWith('/downloads/');
    fetched.push(request.sizes().then((sizes) => ({ downloads, bytes: sizes.responseBodySize })));
  });
  const started = performance.now();
  await page.goto(origin + view.path);
  // Shown: the rows drawn and counted (a wide table's columns out of sight may still be read);
  // complete: every column of them read, the page no longer busy.
  await page.waitForFunction(
    `(() => { const root = document.querySelector('[data-table-explorer]'); return root && (root.querySelector('[data-explorer-status]').dataset.total !== undefined || !root.querySelector('[data-explorer-error]').hidden) && (document.querySelector('.explorer-body [role=row]') || root.querySelector('[data-explorer-status]').dataset.total === '0' || !root.querySelector('[data-explorer-error]').hidden); })()`,
    null,
    { timeout: 600_000, polling: 20 },
  );
  const shownMs = performance.now() - started;
  await page.waitForFunction(`!document.querySelector('[data-table-explorer]').hasAttribute('aria-busy')`, null, { timeout: 600_000, polling: 20 });
  const completeMs = performance.now() - started;
  const { total, error } = await page.evaluate<{ total: number; error: string | null }>(
    `(() => { const e = document.querySelector('[data-explorer-error]'); return { total: Number(document.querySelector('[data-explorer-status]').dataset.total), error: e.hidden ? null : e.textContent }; })()`,
  );
  await page.waitForTimeout(200);
  const sizes = await Promise.all(fetched);
  const downloads = sizes.filter((size) => size.downloads);
  results.push({
    ...view,
    shownMs,
    completeMs,
    total,
    requests: downloads.length,
    bytes: downloads.reduce((sum, size) => sum + size.bytes, 0),
    allBytes: sizes.reduce((sum, size) => sum + size.bytes, 0),
    error,
  });
  await page.close();
  await own?.close();
  console.error(`  ${view.name}: ${Math.round(shownMs)} ms, complete ${Math.round(completeMs)} ms${error ? ` FAILED: ${error}` : ''}`);
}
await browser.close();
server.close();

const kib = (bytes: number) => (bytes / 1024).toFixed(1);
console.log(
  [
    `Table pages (Chromium), pages of ${treeDir}, downloads of ${downloadsDir}, loopback; DuckDB-WASM from the browser's cache.`,
    '',
    '| view | rows matching | shown after (ms) | complete after (ms) | download requests | KiB of the downloads | of the table | KiB in all (page, scripts, downloads) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.name} | ${r.total.toLocaleString('en')} | ${Math.round(r.shownMs)} | ${Math.round(r.completeMs)} | ${r.requests} | ${kib(r.bytes)} | ${r.tableBytes ? ((100 * r.bytes) / r.tableBytes).toFixed(1) : '0'} % of ${kib(r.tableBytes)} KiB | ${kib(r.allBytes)} |`,
    ),
  ].join('\n'),
);
await mkdir('bench/results', { recursive: true });
const resultsFile = join('bench/results', `table-pages-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
await writeFile(resultsFile, JSON.stringify({ tree: treeDir, downloads: downloadsDir, results }, null, 2));
console.error(`results: ${resultsFile}`);
