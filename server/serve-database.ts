import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { type Dataset, type Resource } from '../datasets/vocabulary/dataset.ts';
import { viewName } from '../core/table.ts';
import { renderContext } from '../datasets/vocabulary/render.ts';
import { rowOrder } from '../core/row-order.ts';
import type { Table } from '../core/table.ts';
import type { Endpoint } from '../datasets/vocabulary/endpoint.ts';
import { readList, rowDecoder } from '../core/db/columns.ts';
import { quoteIdentifier, quoteString, streamJsonRows } from '../core/db/duckdb.ts';
import { ownerGone, ownerTag } from '../core/process-owner.ts';
import { createViews, type Snapshot } from '../core/snapshot/read.ts';
import { sourceHash } from '../core/source-hash.ts';

/**
 * The server's own database for a snapshot: the tables requests page through or look up by key,
 * copied from the Parquet files in list order, with what their filters derive, and the rows of
 * the resources pages and items answer with rendered (see renderedResources). DuckDB keeps it
 * compressed on disk and caches what requests touch, so memory stays bounded however large the
 * snapshot. Built once, under a temporary name, then kept in the data directory's cache beside the
 * snapshot it was made from.
 */

/** Bump when what the file holds changes: an older file is then built again. */
const FORMAT = 7;
export const SCHEMA = 'served';

/** Derived columns filters need: the text of a list column, a row's shapes. */
export const textColumn = (column: string) => `${column}__text`;
export const SHAPES_COLUMN = '__shapes';
const inSchema = (table: string) => `${SCHEMA}.${quoteIdentifier(table)}`;

/** The column of renderedTable holding each row rendered as a resource (see renderedResources). */
export const renderedColumn = (resource: string) => `__rendered_${resource}`;
/** The one-row table holding the placeholder that rendered rows have in place of the links' base. */
export const RENDERING_TABLE = '__rendering';

/** Tables this small are stored whole, whatever answers them: reading them is then a lookup. */
const SMALL_TABLE_BYTES = 4 * 1024 * 1024;

let codeKey: Promise<string> | undefined;

/**
 * The file's name carries a hash of the code that shapes what it holds (the data-set declarations,
 * whose render functions made its stored renderings, and this file), so an upgraded odsnap never
 * serves what an older one rendered.
 */
export async function serveDatabasePath(snapshot: Snapshot): Promise<string> {
  codeKey ??= sourceHash([new URL('../datasets', import.meta.url), new URL(import.meta.url), new URL('../core/db/columns.ts', import.meta.url)]);
  return join(snapshot.cacheDir, `serve-v${FORMAT}-${(await codeKey).slice(0, 12)}.duckdb`);
}

/**
 * The columns a table's page filters read, with what they derive: the part of a paged table kept
 * in memory. The page's rows themselves are then read from the stored table by row number.
 */
export function filterColumns(dataset: Dataset, table: Table): string[] | undefined {
  const pages = dataset.endpoints.flatMap((e) => (e.answer.kind === 'page' && dataset.resources[e.answer.resource]?.table === table.name ? [e.answer] : []));
  if (!pages.length) return undefined;
  // Lists of ids (listContains) stay in the stored table: scanning them there takes a few
  // milliseconds, while a copy in memory would be the largest part of it (city: 50 MB).
  const columns = pages.flatMap((p) => Object.values(p.filters)).flatMap((f) =>
    f.kind === 'partOfAny' ? [textColumn(f.column)] : f.kind === 'intersects' ? [...f.extent, SHAPES_COLUMN] : f.kind === 'listContains' ? [] : [f.column]);
  return [...new Set(columns)];
}

/**
 * Resources stored rendered, as JSON text, in a table beside their rows (`renderedTable`, row for
 * row): those pages and items answer with, when none of those endpoints takes a `timezone`, so
 * that their JSON depends on the row and the links' base alone. They are rendered once, by the
 * same function, with a placeholder for the base. A page is then spliced from texts, and no row is
 * decoded, rendered or serialized per request (for a page of 100 transactions that was 3.4 ms, a
 * third of the answer). An item is one text, looked up by a key copied beside it (renderedKeys):
 * DuckDB plans a statement again for each set of bound values, and planning a read of every
 * column of a wide row took longer than the read itself (at city scale, a transaction by id: 1.3
 * ms in DuckDB, its rendering by key 0.7 ms), for a bigger file (a property's details are stored
 * twice, as rows and rendered).
 */
export function renderedResources(dataset: Dataset, table: Table): Resource[] {
  const fixed = new Map<string, boolean>();
  for (const endpoint of dataset.endpoints) {
    const { answer } = endpoint;
    if ((answer.kind !== 'page' && answer.kind !== 'item') || dataset.resources[answer.resource]?.table !== table.name) continue;
    fixed.set(answer.resource, (fixed.get(answer.resource) ?? true) && !('timezone' in endpoint.params));
  }
  return [...fixed].filter(([, isFixed]) => isFixed).map(([name]) => dataset.resources[name]!);
}

/** The table holding a stored table's rows rendered, a row for each of its rows, in the same order. */
export const renderedTable = (stored: string) => `${stored}__rendered`;

/** Item endpoints answered with their resource's stored rendering. */
export function renderedItems(dataset: Dataset, table: Table): Endpoint[] {
  const rendered = new Set(renderedResources(dataset, table).map((r) => r.name));
  return dataset.endpoints.filter(({ answer }) => answer.kind === 'item' && rendered.has(answer.resource));
}

/** The columns renderedItems look items up by: copied beside the renderings, and indexed there. */
export const renderedKeys = (dataset: Dataset, table: Table): string[] =>
  [...new Set(renderedItems(dataset, table).flatMap(({ answer }) => (answer.kind === 'item' ? answer.match : [])))];

/**
 * Columns rows are looked up by, one value at a time: those the parents of series match on, and
 * items not answered with renderings (renderedItems). They are indexed (ART), so a lookup fetches
 * one row instead of scanning every id of the table (a transaction by id at city scale, when read
 * as a row: 6.5 ms → 2 ms). The lookups' SQL is unchanged: DuckDB uses the index for an equality
 * on the column.
 */
export function lookupColumns(dataset: Dataset, table: Table): string[] {
  const ofTable = (resource: string) => dataset.resources[resource]?.table === table.name;
  const fromRenderings = renderedItems(dataset, table);
  const columns = dataset.endpoints.flatMap((endpoint) => {
    const { answer } = endpoint;
    return answer.kind === 'item' && ofTable(answer.resource) && !fromRenderings.includes(endpoint) ? answer.match
    : answer.kind === 'series' ? answer.parents.flatMap((parent) => (ofTable(parent.resource) ? parent.match : []))
    : [];
  });
  return [...new Set(columns)];
}

interface StoredTable {
  readonly derived: string[];
}

/** Which tables are stored and with what: paged and looked-up tables, and any small one. */
export function storagePlan(dataset: Dataset, table: Table, snapshot: Snapshot): StoredTable | undefined {
  const answers = dataset.endpoints.map((e) => e.answer);
  const ofTable = (resource: string) => dataset.resources[resource]?.table === table.name;
  const pages = answers.flatMap((a) => (a.kind === 'page' && ofTable(a.resource) ? [a] : []));
  const items = answers.flatMap((a) => ((a.kind === 'item' || a.kind === 'document') && ofTable(a.resource) ? [a] : []));
  const bytes = snapshot.manifest.datasets[dataset.name]!.tables[table.name]!.files.reduce((n, f) => n + f.bytes, 0);
  if (!pages.length && !items.length && bytes > SMALL_TABLE_BYTES) return undefined;
  const derived: string[] = [];
  for (const filter of pages.flatMap((p) => Object.values(p.filters))) {
    if (filter.kind === 'partOfAny') derived.push(`lower(array_to_string(${quoteIdentifier(filter.column)}, chr(1))) AS ${quoteIdentifier(textColumn(filter.column))}`);
    if (filter.kind === 'intersects') derived.push(`${filter.shapes} AS ${quoteIdentifier(SHAPES_COLUMN)}`);
  }
  return { derived };
}

export async function ensureServeDatabase(snapshot: Snapshot, datasets: readonly Dataset[]): Promise<string> {
  const path = await serveDatabasePath(snapshot);
  if (await stat(path).then(() => true, () => false)) return path;
  await mkdir(snapshot.cacheDir, { recursive: true });
  const temporary = `${path}.${ownerTag()}-${randomBytes(4).toString('hex')}.tmp`;
  const instance = await DuckDBInstance.create(temporary, { memory_limit: '512MB', threads: '2' });
  const connection = await instance.connect();
  try {
    const run = (sql: string) => connection.run(sql).then(() => undefined);
    await run(`SET TimeZone = 'UTC'`);
    // FSST-compressed text must be decompressed to be compared: a lookup by id then decodes every
    // id in the table. Without it, key scans run three times faster, for a file about twice as big.
    await run(`SET disabled_compression_methods = 'fsst'`);
    await run(`CREATE SCHEMA ${SCHEMA}`);
    // Unguessable, so no text in the data can be taken for it.
    const token = `{base_url:${randomBytes(9).toString('base64url')}}`;
    await run(`CREATE TABLE ${SCHEMA}.${RENDERING_TABLE} AS SELECT ${quoteString(token)} AS token`);
    await createViews({ run: (sql) => run(sql.replace('CREATE OR REPLACE VIEW', 'CREATE OR REPLACE TEMP VIEW')) }, snapshot, datasets);
    for (const dataset of datasets) {
      for (const table of Object.values(dataset.tables)) {
        const plan = storagePlan(dataset, table, snapshot);
        if (!plan) continue;
        const stored = viewName(dataset, table.name);
        const name = inSchema(stored);
        const select = [...Object.keys(table.columns).map(quoteIdentifier), ...plan.derived].join(', ');
        // Each file is already in row order (the snapshot writer sees to it), so one file needs no
        // sort; sorting wide rows (JSON details) would also need far more memory than copying them.
        const files = snapshot.manifest.datasets[dataset.name]!.tables[table.name]!.files.length;
        const order = files > 1 ? ` ORDER BY ${rowOrder(table).map(quoteIdentifier).join(', ')}` : '';
        await run(`CREATE TABLE ${name} AS SELECT ${select} FROM ${quoteIdentifier(stored)}${order}`);
        for (const column of lookupColumns(dataset, table)) {
          await run(`CREATE INDEX ${quoteIdentifier(`${stored}__${column}`)} ON ${name} (${quoteIdentifier(column)})`);
        }
        const rendered = renderedResources(dataset, table);
        if (rendered.length) await storeRenderings(instance, connection, stored, table, rendered, renderedKeys(dataset, table), token);
      }
    }
    await run('CHECKPOINT');
  } catch (error) {
    connection.closeSync();
    instance.closeSync();
    await rm(temporary, { force: true });
    throw error;
  }
  connection.closeSync();
  instance.closeSync();
  await rename(temporary, path);
  await rm(`${temporary}.wal`, { force: true });
  // Files of older code are never read again (a server still reading one keeps it open).
  for (const name of await readdir(snapshot.cacheDir)) {
    if (/^serve-v\d+(-[\w-]+)?\.duckdb$/.test(name) && join(snapshot.cacheDir, name) !== path) await rm(join(snapshot.cacheDir, name), { force: true });
  }
  await removeAbandoned(snapshot.cacheDir);
  return path;
}

/** `<path>.<host>-<pid>-<random>.tmp` (and its `.wal`): a serving database being built. */
const BUILDING = /^serve-v\d+(-[\w-]+)?\.duckdb\.(.+)-(\d+)-[0-9a-f]{8}\.tmp(\.wal)?$/;

/**
 * Removes what builds that died (killed, or out of memory) before their rename left behind: a
 * city's is half a gigabyte. Only those of this host's processes that no longer run (see
 * process-owner.ts).
 */
async function removeAbandoned(cacheDir: string) {
  for (const name of await readdir(cacheDir)) {
    const [, , host, pid] = BUILDING.exec(name) ?? [];
    if (host && ownerGone(host, Number(pid))) await rm(join(cacheDir, name), { force: true });
  }
}

/**
 * Renders a stored table's rows as each resource, links under `token`, into `renderedTable`: rows
 * are read and rendered in row order and appended, each with the row number it was read from,
 * which is then checked to be its own, so a row never gets another's text, and with the `keys`
 * its items are looked up by, indexed once all are in.
 */
async function storeRenderings(instance: DuckDBInstance, connection: DuckDBConnection, stored: string, table: Table, resources: readonly Resource[], keys: readonly string[], token: string) {
  const texts = inSchema(renderedTable(stored));
  const keyColumns = keys.map((key) => `${quoteIdentifier(key)} ${table.columns[key]!.sqlType}`);
  await connection.run(`CREATE TABLE ${texts} ("__position" BIGINT, ${[...keyColumns, ...resources.map((r) => `${quoteIdentifier(renderedColumn(r.name))} VARCHAR`)].join(', ')})`);
  const context = renderContext({ baseUrl: token });
  const decode = rowDecoder(table.columns);
  // Reading streams on its own connection: appending on the same one would end the stream.
  const reader = await instance.connect();
  const appender = await connection.createAppender(renderedTable(stored), SCHEMA);
  try {
    // Keys come as DuckDB writes them as text, which the appender casts back to their type.
    const keyTexts = keys.map((key, i) => `CAST(${quoteIdentifier(key)} AS VARCHAR) AS "__key${i}"`);
    for await (const rows of streamJsonRows(reader, `SELECT rowid AS "__position", ${[...keyTexts, readList(table.columns)].join(', ')} FROM ${inSchema(stored)}`)) {
      for (const read of rows) {
        const row = decode(read);
        appender.appendBigInt(BigInt(row.__position as number));
        for (let i = 0; i < keys.length; i++) {
          const key = row[`__key${i}`] as string | null;
          if (key === null) appender.appendNull();
          else appender.appendVarchar(key);
        }
        for (const resource of resources) appender.appendVarchar(JSON.stringify(resource.render(row, context)));
        appender.endRow();
      }
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
    reader.closeSync();
  }
  const misplaced = await connection.runAndReadAll(`SELECT count(*) FROM ${texts} WHERE rowid <> "__position"`);
  if (Number(misplaced.getRows()[0]![0]) !== 0) throw new Error(`${stored}: rendered rows did not come in row order`);
  for (const key of keys) await connection.run(`CREATE INDEX ${quoteIdentifier(`${renderedTable(stored)}__${key}`)} ON ${texts} (${quoteIdentifier(key)})`);
}
