import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { readList, rowDecoder } from '../core/db/columns.ts';
import { asJsonRows, quoteIdentifier, quoteString } from '../core/db/duckdb.ts';
import { nodeCommand } from '../core/node-process.ts';
import { ownerGone, ownerTag } from '../core/process-owner.ts';
import { rowOrder } from '../core/row-order.ts';
import { createViews, type Snapshot } from '../core/snapshot/read.ts';
import { sourceHash } from '../core/source-hash.ts';
import { viewName, type Table } from '../core/table.ts';
import type { Dataset } from '../datasets/vocabulary/dataset.ts';
import { renderContext } from '../datasets/vocabulary/render.ts';
import { stringify } from '../datasets/vocabulary/written.ts';
import { RecordFileWriter } from './record-store.ts';
import { writeSeriesFiles } from './series-files.ts';
import { lookupColumns, recordedResources, storagePlan } from './storage-plan.ts';

/**
 * The server's own database for a snapshot: the tables requests page through or look up by key,
 * copied from the Parquet files in list order, with what their filters derive; beside it, record
 * files of the rows of the resources pages and items answer with, rendered (see
 * renderedResources and record-store.ts), and series files of those series answer with
 * (series-files.ts). DuckDB keeps it
 * compressed on disk and caches what requests touch, so memory stays bounded however large the
 * snapshot. Built once, under a temporary name, then kept in the data directory's cache beside the
 * snapshot it was made from.
 */

/** Bump when what the file holds changes: an older file is then built again. */
const FORMAT = 10;
export const SCHEMA = 'served';

const inSchema = (table: string) => `${SCHEMA}.${quoteIdentifier(table)}`;

/** The one-row table holding the placeholder that rendered rows have in place of the links' base. */
export const RENDERING_TABLE = '__rendering';

let codeKey: Promise<string> | undefined;

/**
 * The file's name carries a hash of the code that shapes what it holds (the data-set declarations,
 * whose render functions made its stored renderings, and this file), so an upgraded odsnap never
 * serves what an older one rendered.
 */
export async function serveDatabasePath(snapshot: Snapshot): Promise<string> {
  codeKey ??= sourceHash([
    new URL('../datasets', import.meta.url),
    new URL(import.meta.url),
    new URL('./storage-plan.ts', import.meta.url),
    new URL('./record-store.ts', import.meta.url),
    new URL('./series-store.ts', import.meta.url),
    new URL('./series-files.ts', import.meta.url),
    new URL('../core/db/columns.ts', import.meta.url),
  ]);
  return join(snapshot.cacheDir, `serve-v${FORMAT}-${(await codeKey).slice(0, 12)}.duckdb`);
}

/** Where the record files of the serving database at `path` are (see record-store.ts). */
export const recordsDir = (path: string) => path.replace(/\.duckdb$/, '.records');
/** A resource's record files (without their extensions) in it. */
export const recordFile = (dir: string, stored: string, resource: string) => join(dir, `${stored}.${resource}`);

export type BuilderReply = { readonly path: string; readonly peakKiB: number } | { readonly failed: string };

const builder = new URL('./serve-database-process.ts', import.meta.url);

/**
 * The path of a snapshot's serving database, built first if it does not exist yet, in a process
 * of its own (serve-database-process.ts): at city scale the build takes most of a gigabyte, which
 * the server should not hold afterwards (memory a process has used it mostly keeps). It runs at
 * the server's priority: at a lower one, a server under steady load kept it from finishing for
 * over five minutes, the new snapshot waiting all that time. `log` hears when a build starts and
 * ends, with its time and peak memory.
 */
export async function ensureServeDatabase(
  snapshot: Snapshot,
  datasets: readonly Dataset[],
  log: (event: Record<string, unknown>) => void = () => {},
): Promise<string> {
  const path = await serveDatabasePath(snapshot);
  if (await exists(path)) return path;
  // One build per file, and one at a time: a hot swap and a request for the same past snapshot share
  // a build, and requests for many past snapshots at once do not start a builder each.
  const shared = building.get(path);
  if (shared) return shared;
  // Its turn come, the file may be there: another server sharing the cache built it meanwhile.
  const built = buildsInTurn.then(() => (existsSync(path) ? path : buildApart(snapshot, datasets, log)));
  buildsInTurn = built.catch(() => undefined);
  building.set(path, built);
  void built.finally(() => building.delete(path)).catch(() => undefined);
  return built;
}

const building = new Map<string, Promise<string>>();
let buildsInTurn: Promise<unknown> = Promise.resolve();

async function buildApart(snapshot: Snapshot, datasets: readonly Dataset[], log: (event: Record<string, unknown>) => void): Promise<string> {
  log({ event: 'serving-database-building', snapshot: snapshot.id });
  const started = performance.now();
  const declared = JSON.stringify(datasets.map(({ name, module }) => ({ name, module })));
  const [command, args] = nodeCommand(builder, [resolve(snapshot.dir), snapshot.id, resolve(snapshot.cacheDir), declared]);
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const [reply] = await Promise.all([
    new Promise<BuilderReply | undefined>((done) => {
      child.once('message', (message: BuilderReply) => done(message));
      child.once('exit', () => done(undefined));
    }),
    once(child, 'exit'),
  ]);
  if (!reply || 'failed' in reply) {
    const why =
      reply && 'failed' in reply
        ? reply.failed
        : `it ended with ${child.signalCode ?? `exit code ${child.exitCode}`}: ${stderr.trim().split('\n').at(-1) ?? ''}`;
    throw new Error(`could not build the serving database of snapshot ${snapshot.id}: ${why}`);
  }
  log({
    event: 'serving-database-built',
    snapshot: snapshot.id,
    builder: child.pid,
    seconds: Math.round((performance.now() - started) / 100) / 10,
    peakMiB: Math.round(reply.peakKiB / 1024),
  });
  return reply.path;
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** Builds a snapshot's serving database in this process, unless it exists; returns its path. */
export async function buildServeDatabase(snapshot: Snapshot, datasets: readonly Dataset[]): Promise<string> {
  const path = await serveDatabasePath(snapshot);
  if (await exists(path)) return path;
  await mkdir(snapshot.cacheDir, { recursive: true });
  const temporary = `${path}.${ownerTag()}-${randomBytes(4).toString('hex')}.tmp`;
  const records = `${temporary}.records`;
  await mkdir(records);
  const instance = await DuckDBInstance.create(temporary, { memory_limit: '128MB', threads: '1' });
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
        const recorded = recordedResources(dataset, table);
        if (recorded.length) await writeRecordFiles(connection, stored, table, recorded, token, records);
      }
      for (const table of Object.values(dataset.tables)) {
        const stored = viewName(dataset, table.name);
        await writeSeriesFiles(connection, dataset, table, token, (name) => recordFile(records, stored, name));
      }
    }
    await run('CHECKPOINT');
  } catch (error) {
    connection.closeSync();
    instance.closeSync();
    await rm(temporary, { force: true });
    await rm(records, { recursive: true, force: true });
    throw error;
  }
  connection.closeSync();
  instance.closeSync();
  // The records first: the database's name is what says the build is whole.
  await rm(recordsDir(path), { recursive: true, force: true });
  await rename(records, recordsDir(path));
  await rename(temporary, path);
  await rm(`${temporary}.wal`, { force: true });
  // Files of older code are never read again (a server still reading one keeps it open).
  for (const name of await readdir(snapshot.cacheDir)) {
    const file = join(snapshot.cacheDir, name);
    if (/^serve-v\d+(-[\w-]+)?\.(duckdb|records)$/.test(name) && file !== path && file !== recordsDir(path)) await rm(file, { recursive: true, force: true });
  }
  await removeAbandoned(snapshot.cacheDir);
  return path;
}

/** `<path>.<host>-<pid>-<random>.tmp` (and its `.wal`): a serving database being built. */
const BUILDING = /^serve-v\d+(-[\w-]+)?\.duckdb\.(.+)-(\d+)-[0-9a-f]{8}\.tmp(\.wal|\.records)?$/;

/**
 * Removes what builds that died (killed, or out of memory) before their rename left behind: a
 * city's is half a gigabyte. Only those of this host's processes that no longer run (see
 * process-owner.ts).
 */
async function removeAbandoned(cacheDir: string) {
  for (const name of await readdir(cacheDir)) {
    const [, , host, pid] = BUILDING.exec(name) ?? [];
    if (host && ownerGone(host, Number(pid))) await rm(join(cacheDir, name), { recursive: true, force: true });
  }
}

/**
 * A stored table's rows in row order, read as JSON (see asJsonRows) a range of row ids at a time,
 * each range sized from the rows read so far to hold about BATCH_BYTES of JSON. Memory follows
 * the rows in flight, and a register's property reads as tens of kilobytes: a stream over the
 * whole table lets DuckDB read far ahead, and took the build to gigabytes at city scale.
 */
async function* inBatches(connection: DuckDBConnection, select: string): AsyncGenerator<Record<string, unknown>[]> {
  let rows = 256;
  for (let from = 0; ; ) {
    const result = await connection.runAndReadAll(asJsonRows(`${select} WHERE rowid >= ${from} AND rowid < ${from + rows} ORDER BY rowid`));
    const texts = result.getRowsJS().map(([text]) => text as string);
    if (!texts.length) return;
    yield texts.map((text) => JSON.parse(text) as Record<string, unknown>);
    from += rows;
    const bytes = texts.reduce((sum, text) => sum + text.length, 0);
    rows = Math.max(16, Math.min(4096, Math.floor((rows * BATCH_BYTES) / Math.max(bytes, 1))));
  }
}

const BATCH_BYTES = 2 * 1024 * 1024;

/**
 * Renders a stored table's rows as each recorded resource, links under `token`, into its record
 * file (record-store.ts) with the keys its items are found by. Rows are read and rendered in row
 * order, each checked to come with its own row number, so that pages, which read rows by number,
 * never get another row's text.
 */
async function writeRecordFiles(
  connection: DuckDBConnection,
  stored: string,
  table: Table,
  recorded: ReturnType<typeof recordedResources>,
  token: string,
  recordsIn: string,
) {
  const keys = [...new Set(recorded.flatMap(({ keys }) => keys))];
  const context = renderContext({ baseUrl: token });
  const decode = rowDecoder(table.columns);
  const writers = recorded.map(({ resource, keys: own }) => ({
    resource,
    writer: new RecordFileWriter(recordFile(recordsIn, stored, resource.name), own),
    at: own.map((key) => keys.indexOf(key)),
  }));
  // Keys as DuckDB writes them as text: the form a request's key is looked up in.
  const keyTexts = keys.map((key, i) => `CAST(${quoteIdentifier(key)} AS VARCHAR) AS "__key${i}"`);
  let position = 0;
  for await (const rows of inBatches(
    connection,
    `SELECT rowid AS "__position", ${[...keyTexts, readList(table.columns)].join(', ')} FROM ${inSchema(stored)}`,
  )) {
    for (const read of rows) {
      const row = decode(read);
      if (row.__position !== position++) throw new Error(`${stored}: rendered rows did not come in row order`);
      for (const { resource, writer, at } of writers)
        writer.add(
          stringify(resource.render(row, context)),
          at.map((i) => row[`__key${i}`] as string | null),
        );
    }
  }
  for (const { writer } of writers) writer.finish();
}
