/**
 * Datasette 0.64.8 as a peer of `odsnap serve` for the register's filtered transactions pages:
 * the same rows in SQLite (in list order, an index on each filter column), served by Datasette,
 * and the Datasette request answering the same rows as a v1 request.
 *
 * Datasette is not installed from PyPI (not reachable here) and none of its code is in this
 * repository: it runs from checkouts of its sources (simonw/datasette at tag 0.64.8 and its
 * dependency simonw/asgi-csrf at tag 0.9, both pure Python) with the rest of its dependencies from
 * Debian (DEBIAN_PACKAGES), under Debian's python3.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, quoteIdentifier, quoteString } from '../../core/db/duckdb.ts';
import { rowOrder } from '../../core/row-order.ts';
import { openSnapshot, tableFiles, tableSource } from '../../core/snapshot/read.ts';
import type { Filter } from '../../datasets/answers/index.ts';
import { endpoints } from '../../datasets/rcn/endpoints.ts';
import { transactions } from '../../datasets/rcn/tables.ts';

export const DEBIAN_PACKAGES = [
  'python3-asgiref',
  'python3-uvicorn',
  'python3-jinja2',
  'python3-click',
  'python3-pluggy',
  'python3-httpx',
  'python3-yaml',
  'python3-itsdangerous',
  'python3-aiofiles',
  'python3-janus',
  'python3-mergedeep',
  'python3-pint',
  'python3-hupper',
  'python3-click-default-group',
  'python3-multipart',
  'python3-uvloop',
  'python3-httptools',
];

/** Debian's python3, which the packages above install into (a python3 of pyenv or a venv earlier on PATH has none of them). */
const python = process.env.BENCH_DATASETTE_PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');

/** The database file's name is the database's name in Datasette's paths. */
const DATABASE = 'tx';
const TABLE = 'transactions';

const howToGet = (dir: string) =>
  `check out simonw/datasette at tag 0.64.8 into ${join(dir, 'datasette')} and simonw/asgi-csrf at tag 0.9 into ${join(dir, 'asgi-csrf')} ` +
  `(or pass --datasette DIR / BENCH_DATASETTE=DIR holding both), and apt-get install ${DEBIAN_PACKAGES.join(' ')}`;

/** Where the checkouts are (`--datasette DIR`, else BENCH_DATASETTE, else .cache/peers), or why Datasette cannot run and how to get it. */
export function datasetteLocation(argv: readonly string[], env: NodeJS.ProcessEnv): { checkouts: string[] } | { missing: string } {
  const option = argv.findIndex((arg) => arg === '--datasette' || arg.startsWith('--datasette='));
  const given = option < 0 ? env.BENCH_DATASETTE : argv[option]!.includes('=') ? argv[option]!.slice('--datasette='.length) : argv[option + 1];
  const dir = resolve(given || join('.cache', 'peers'));
  const checkouts = [join(dir, 'datasette'), join(dir, 'asgi-csrf')];
  if (!existsSync(join(checkouts[0]!, 'datasette', 'app.py')) || !existsSync(join(checkouts[1]!, 'asgi_csrf.py'))) {
    return { missing: `${dir} does not hold checkouts of datasette and asgi-csrf; ${howToGet(dir)}` };
  }
  // Importing it now says at once whether a dependency is missing, rather than after the data is loaded.
  const check = spawnSync(python, ['-c', 'import datasette.app, datasette.version as v; print(v.__version__)'], {
    env: { ...process.env, PYTHONPATH: checkouts.join(':') },
    encoding: 'utf8',
  });
  if (check.status !== 0) {
    const why = check.error?.message ?? check.stderr.trim().split('\n').at(-1);
    return { missing: `${python} cannot import Datasette from ${dir} (${why}); ${howToGet(dir)}` };
  }
  if (check.stdout.trim() !== '0.64.8') return { missing: `${checkouts[0]} is Datasette ${check.stdout.trim()}, not 0.64.8; ${howToGet(dir)}` };
  return { checkouts };
}

/** SQLite's type for a column as DuckDB declares it: decimals as REAL so that range filters compare numbers. */
const sqliteType = (sqlType: string) => (/INT/.test(sqlType) ? 'INTEGER' : /^(DECIMAL|DOUBLE)/.test(sqlType) ? 'REAL' : 'TEXT');

/** The v1 transactions page's filters (parameter → filter), from its declaration. */
function transactionFilters(): Readonly<Record<string, Filter>> {
  const answer = endpoints.find((endpoint) => endpoint.path === '/transactions')?.answer;
  if (answer?.kind !== 'page') throw new Error('rcn declares /transactions as a page no longer');
  return answer.filters;
}

/**
 * tx.db of the city's transactions for Datasette, under .cache/bench/datasette: built once (5 s
 * for the city's 209 thousand), again only for another snapshot or data directory. The columns
 * are the table's but its list position (all the page shows; lists as JSON text), rows in list
 * order (Datasette's default order is rowid), an index on each filter column.
 */
export async function transactionsDatabase(cityDataDir: string): Promise<string> {
  const snapshot = await openSnapshot(cityDataDir);
  const dir = join(process.cwd(), '.cache', 'bench', 'datasette');
  const database = join(dir, `${DATABASE}.db`);
  const madeFrom = JSON.stringify({ dataDir: resolve(cityDataDir), snapshot: snapshot.id });
  if (existsSync(database) && (await readFile(`${database}.from`, 'utf8').catch(() => '')) === madeFrom) return database;

  console.error(`loading the city's transactions into ${database} for Datasette…`);
  await mkdir(dir, { recursive: true });
  const rows = join(dir, 'transactions.jsonl');
  const partial = `${database}.partial`;
  await rm(partial, { force: true });
  const columns = Object.entries(transactions.columns).filter(([name]) => name !== 'list_position');
  const db = await openDatabase();
  try {
    const select = columns.map(([name]) => quoteIdentifier(name)).join(', ');
    const order = rowOrder(transactions).map(quoteIdentifier).join(', ');
    await db.run(
      `COPY (SELECT ${select} FROM ${tableSource(tableFiles(snapshot, 'rcn', 'transactions'))} ORDER BY ${order}) TO ${quoteString(rows)} (FORMAT json)`,
    );
  } finally {
    db.close();
  }
  const spec = {
    table: TABLE,
    columns: columns.map(([name, column]) => [name, sqliteType(column.sqlType)]),
    indexes: [...new Set(Object.values(transactionFilters()).flatMap((filter) => ('column' in filter ? [filter.column] : [])))],
  };
  const loader = join(dirname(fileURLToPath(import.meta.url)), 'datasette-load.py');
  const loaded = spawnSync(python, [loader, rows, partial, JSON.stringify(spec)], { stdio: ['ignore', 'inherit', 'inherit'] });
  await rm(rows, { force: true });
  if (loaded.status !== 0) throw new Error(`loading ${partial} failed (${loaded.error?.message ?? `exit ${loaded.status}`})`);
  await rename(partial, database);
  await writeFile(`${database}.from`, madeFrom);
  return database;
}

/**
 * Datasette serving `database` immutable (as odsnap serves a snapshot) on loopback, once it
 * answers. Settings for a fair peer: queries (its count included) may take up to 10 s instead of
 * giving up after 1 s, and no facets are suggested (odsnap computes none); threads, page size and
 * the rest as it comes. Its access log goes to /dev/null.
 */
export async function startDatasette(
  location: { checkouts: string[] },
  database: string,
  port: number,
): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const settings = { sql_time_limit_ms: '10000', suggest_facets: 'off', facet_time_limit_ms: '0' };
  const args = [
    '-m',
    'datasette',
    'serve',
    '-i',
    database,
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    ...Object.entries(settings).flatMap(([name, value]) => ['--setting', name, value]),
  ];
  const child = spawn(python, args, { env: { ...process.env, PYTHONPATH: location.checkouts.join(':') }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  for (let i = 0; i < 300; i++) {
    const answer = await fetch(`${url}/${DATABASE}/${TABLE}.json?_size=1&_nosuggest=1`).catch(() => undefined);
    if (answer?.ok && typeof ((await answer.json()) as { filtered_table_rows_count?: unknown }).filtered_table_rows_count === 'number')
      return { url, pid: child.pid!, stop };
    if (child.exitCode !== null || child.signalCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`Datasette did not start on port ${port}: ${stderr.trim().split('\n').slice(-5).join('\n')}`);
}

/**
 * The Datasette request answering the same rows as a v1 transactions request (first page only;
 * same filters; its count on): `column=value` for equals, `__gte` / `__lte` for inclusive bounds,
 * `_size` the v1 limit (100 unless given). Datasette pages by key, not offset, so only first pages
 * map. `count: false` adds `_nocount=1`.
 */
export function datasettePathFor(v1PathAndQuery: string, options: { count?: boolean } = {}): string {
  const url = new URL(v1PathAndQuery, 'http://v1.invalid');
  if (!url.pathname.endsWith('/rcn/transactions')) throw new Error(`${v1PathAndQuery} is not a request for /rcn/transactions`);
  const filters = transactionFilters();
  const query = new URLSearchParams({ _nosuggest: '1' });
  let size = '100';
  for (const [name, value] of url.searchParams) {
    if (name === 'limit') size = value;
    else if (name === 'offset') {
      if (Number(value) !== 0) throw new Error(`${v1PathAndQuery}: Datasette's tables have no offset; only first pages map`);
    } else {
      const filter = filters[name];
      if (filter?.kind === 'equals') query.append(filter.column, value);
      else if (filter?.kind === 'atLeast') query.append(`${filter.column}__gte`, value);
      else if (filter?.kind === 'atMost') query.append(`${filter.column}__lte`, value);
      else throw new Error(`${v1PathAndQuery}: no Datasette filter for ${name}`);
    }
  }
  query.set('_size', size);
  if (options.count === false) query.set('_nocount', '1');
  return `/${DATABASE}/${TABLE}.json?${query}`;
}
