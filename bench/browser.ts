/**
 * npm run bench:browser [-- --data DIR] — SQL in the browser (the site's /query/ page, DuckDB-WASM
 * in Chromium) over a city-scale snapshot's Parquet downloads, on loopback: for `count(*)` of
 * every table, a month of one counter and a week of one station, the time to the first result
 * (from the click on Run in a fresh page, DuckDB-WASM's start included, and the query alone as
 * the page reports it) and what was fetched of the downloads (requests and bytes).
 *
 * The pages come from the tiny sample's tree built once with the site into
 * .cache/bench/browser/site; the downloads from the snapshot of DIR (default: the city sample,
 * .cache/bench/city), linked once into .cache/bench/browser/downloads-<snapshot>/ with their
 * catalogue, as `odsnap build` writes them (without their CSV twins, which the page never reads).
 * Results go to bench/results/browser-<time>.json; a markdown table is printed.
 */
import { existsSync } from 'node:fs';
import { copyFile, link, mkdir, realpath, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { chromium } from 'playwright-core';
import { quoteString } from '../core/db/duckdb.ts';
import { datasets } from '../datasets/index.ts';
import { defaultSeed, defaultUntil } from '../datasets/vocabulary/sample.ts';
import { openSnapshot } from '../core/snapshot/read.ts';
import { buildStatic } from '../scripts/static/build-static.ts';
import { catalogueOf } from '../scripts/static/downloads/catalogue.ts';
import { tableDownloads } from '../scripts/static/downloads/files.ts';
import { argument, hostStatic } from './browser-host.ts';
import { cityDataDir, generatedOnce } from './city.ts';

const dataDir = argument('--data') ?? (await cityDataDir());
const benchDir = join(process.cwd(), '.cache', 'bench', 'browser');

// The site: built once from the tiny sample (its pages do not depend on the data's size).
const siteTree = join(benchDir, 'site');
if (!existsSync(join(siteTree, 'query', 'index.html'))) {
  console.error('building the site once (tiny sample)…');
  const tiny = await generatedOnce(join(benchDir, 'tiny'), { scale: 'tiny', seed: defaultSeed, until: defaultUntil });
  await buildStatic({ dataDir: tiny, out: siteTree, datasets, site: true });
}

// The downloads of DIR's snapshot, at the paths and with the catalogue odsnap build gives them.
const snapshot = await openSnapshot(dataDir);
const downloadsTree = join(benchDir, `downloads-${snapshot.manifest.id}`);
const tables = tableDownloads(snapshot, datasets, '', () => ({ bytes: 0, sha256: '' }));
if (!existsSync(join(downloadsTree, 'downloads', 'catalogue.json'))) {
  console.error(`linking the downloads of ${snapshot.manifest.id} once…`);
  for (const table of tables) {
    for (const file of table.files) {
      const target = join(downloadsTree, file.path);
      await mkdir(dirname(target), { recursive: true });
      if (!existsSync(target)) await link(join(snapshot.dir, file.source), target).catch(() => copyFile(join(snapshot.dir, file.source), target));
    }
  }
  await writeFile(
    join(downloadsTree, 'downloads', 'catalogue.json'),
    JSON.stringify(catalogueOf(snapshot, tables, { script: '', command: '', remote: false })),
  );
}

const server = await hostStatic(await realpath(siteTree), downloadsTree);
const { origin } = server;

// The queries: count(*) of every table, a month of the fullest counter, a week of the fullest station.
const fullestFile = (sqlName: string) =>
  [...tables.find((table) => `${table.dataset.sqlName}_${table.table.name}` === sqlName)!.files].sort((a, b) => b.rows - a.rows)[0]!;
const counter = fullestFile('bike_counter_readings');
const month = counter.max!.slice(0, 7);
const station = fullestFile('air_quality_readings');
const weekEnd = station.max!.slice(0, 10);
const queries: { name: string; sql: string; tableBytes: number }[] = [
  ...tables.map((table) => {
    const name = `${table.dataset.sqlName}_${table.table.name}`;
    return { name: `count(*) ${name}`, sql: `SELECT count(*) FROM ${name}`, tableBytes: table.files.reduce((sum, file) => sum + file.bytes, 0) };
  }),
  {
    name: `one counter, one month (${counter.partition.counter}, ${month})`,
    sql: `SELECT read_at::DATE AS day, count(*) AS readings, sum(value) AS total FROM bike_counter_readings WHERE counter_id = ${quoteString(counter.partition.counter!)} AND read_at >= '${month}-01' AND read_at < '${month}-01'::DATE + INTERVAL 1 MONTH GROUP BY 1 ORDER BY 1`,
    tableBytes: tables
      .find((table) => table.table.name === 'readings' && table.dataset.name === 'bike-counter')!
      .files.reduce((sum, file) => sum + file.bytes, 0),
  },
  {
    name: `one station, one week (${station.partition.station}, to ${weekEnd})`,
    sql: `SELECT sensor_code, date_trunc('day', read_at) AS day, avg(value) AS mean FROM air_quality_readings WHERE station_id = ${quoteString(station.partition.station!)} AND read_at >= '${weekEnd}'::DATE - INTERVAL 6 DAY AND read_at < '${weekEnd}'::DATE + INTERVAL 1 DAY GROUP BY ALL ORDER BY ALL`,
    tableBytes: tables
      .find((table) => table.table.name === 'readings' && table.dataset.name === 'air-quality')!
      .files.reduce((sum, file) => sum + file.bytes, 0),
  },
];

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
const context = await browser.newContext();
// DuckDB-WASM (34 MB) is fetched once and then comes from the browser's cache, as for a visitor's second query.
const warm = await context.newPage();
await warm.goto(`${origin}/query/`);
await warm.fill('[data-sql-text]', 'SELECT 1');
await warm.click('[data-sql-run]');
await warm.waitForSelector('[data-sql-console]:not([aria-busy]) [data-sql-result] table', { timeout: 120_000 });
await warm.close();

interface Figures {
  readonly name: string;
  readonly rows: number;
  readonly firstResultMs: number;
  readonly queryMs: number;
  readonly requests: number;
  readonly bytes: number;
  readonly tableBytes: number;
  readonly failed: number;
}
const results: Figures[] = [];
for (const query of queries) {
  const page = await context.newPage();
  const fetched: Promise<number>[] = [];
  let failed = 0;
  page.on('requestfinished', (request) => {
    if (new URL(request.url()).pathname.startsWith('/downloads/') && request.url().endsWith('.parquet'))
      fetched.push(request.sizes().then((sizes) => sizes.responseBodySize));
  });
  // The page's /healthz check fails on a static host by design: only the downloads count here.
  page.on('requestfailed', (request) => {
    if (new URL(request.url()).pathname.startsWith('/downloads/')) failed++;
  });
  await page.goto(`${origin}/query/`);
  await page.fill('[data-sql-text]', query.sql);
  const started = performance.now();
  await page.click('[data-sql-run]');
  await page.waitForSelector('[data-sql-console]:not([aria-busy]) [data-sql-result] table, [data-sql-error]:not([hidden])', { timeout: 600_000 });
  const firstResultMs = performance.now() - started;
  const error = await page.evaluate<string | null>(`document.querySelector('[data-sql-error]:not([hidden])')?.textContent ?? null`);
  if (error) throw new Error(`${query.name}: ${error}`);
  const status = (await page.textContent('[data-sql-status]')) ?? '';
  const rows = Number(/Rows: (\d+)/.exec(status)?.[1] ?? NaN);
  const queryMs = Number(/Time: (\d+) ms/.exec(status)?.[1] ?? NaN);
  await page.waitForTimeout(200);
  const sizes = await Promise.all(fetched);
  results.push({
    name: query.name,
    rows,
    firstResultMs,
    queryMs,
    requests: sizes.length,
    bytes: sizes.reduce((sum, size) => sum + size, 0),
    tableBytes: query.tableBytes,
    failed,
  });
  await page.close();
  console.error(`  ${query.name}: ${Math.round(firstResultMs)} ms, ${sizes.length} requests`);
}
await browser.close();
server.close();

const kib = (bytes: number) => (bytes / 1024).toFixed(1);
const lines = [
  `SQL in the browser (Chromium, DuckDB-WASM) over snapshot ${snapshot.manifest.id} (${dataDir}), loopback; DuckDB-WASM from the browser's cache.`,
  '',
  '| query | rows | first result (ms) | query alone (ms) | Parquet requests | KiB fetched | of the table | downloads failed |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
  ...results.map(
    (r) =>
      `| ${r.name} | ${r.rows} | ${Math.round(r.firstResultMs)} | ${r.queryMs} | ${r.requests} | ${kib(r.bytes)} | ${r.tableBytes ? ((100 * r.bytes) / r.tableBytes).toFixed(2) : '0'} % of ${kib(r.tableBytes)} KiB | ${r.failed} |`,
  ),
];
console.log(lines.join('\n'));
await mkdir('bench/results', { recursive: true });
const resultsFile = join('bench/results', `browser-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
await writeFile(resultsFile, JSON.stringify({ snapshot: snapshot.manifest.id, dataDir, results }, null, 2));
console.error(`results: ${resultsFile}`);
