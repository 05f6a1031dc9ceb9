import * as duckdb from '@duckdb/duckdb-wasm';
// The one bundle the site ships (exception handling: every current browser), copied into the
// build by Vite under _astro/: nothing comes from a CDN, so the page works offline.
import wasmUrl from '@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url';
import workerUrl from '@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js?url';
import type { Vector } from 'apache-arrow';
import { parquetMetadataAsync, type AsyncBuffer, type FileMetaData } from 'hyparquet';
import { browserType, columnSql, createTableSql, partsAsArrow, quoteIdentifier, readColumns, type CatalogueColumn } from './parquet-table.ts';
import { fileRanges, scanMayRead, scansOf, statisticValue, type CatalogueFile, type CataloguePartition, type ColumnTypes, type Scan } from './scan-plan.ts';
import { textResult, type ArrowLike, type TextResult } from './sql-result.ts';

/**
 * DuckDB in the browser over the published Parquet files, loaded on first use (this module is
 * imported dynamically, so no other page pays for it). Every table of the downloads catalogue
 * is there under the name `odsnap sql` and `/api/sql` give it, and holds, when a query runs, the
 * rows and columns that query can need: DuckDB plans the query first (scan-plan.ts says what
 * each scan reads), files are skipped by the catalogue, row groups by their statistics, and what
 * is left is fetched by HTTP range requests, only the columns asked for (parquet-table.ts).
 * `count(*)` of a table reads no file at all: the catalogue has every file's rows.
 */

/** The part of downloads/catalogue.json read here (scripts/static/downloads/catalogue.ts writes it). */
interface CatalogueTable {
  readonly sqlName: string;
  readonly columns: readonly CatalogueColumn[];
  readonly partitionBy: readonly CataloguePartition[];
  readonly timeColumn?: string | null;
  readonly files: readonly CatalogueFile[];
}
interface Catalogue {
  readonly tables: readonly CatalogueTable[];
}

export interface BrowserDatabase {
  /** Every table's name. */
  readonly tables: readonly string[];
  /** Runs SQL (one or more statements); the result of the last one. */
  query(sql: string): Promise<TextResult>;
}

/** The end of a file fetched first for its footer: small files come whole in one request. */
const FOOTER_GUESS = 16 * 1024;
/** Where the empty tables queries are planned over are. */
const PLAN_SCHEMA = 'odsnap_plan';
/** Files fetched at once. */
const PARALLEL = 6;

/**
 * A published file read by HTTP range requests, its size known from the catalogue (no HEAD). A
 * range inside one already fetched is cut from it, so nothing is fetched twice.
 */
class RemoteFile implements AsyncBuffer {
  private readonly held: { start: number; end: number; bytes: Promise<ArrayBuffer> }[] = [];
  constructor(
    readonly url: string,
    readonly byteLength: number,
  ) {}

  slice(start: number, end = this.byteLength): Promise<ArrayBuffer> {
    if (start < 0) start = Math.max(0, this.byteLength + start);
    const held = this.held.find((range) => range.start <= start && end <= range.end);
    if (held) return held.bytes.then((bytes) => bytes.slice(start - held.start, end - held.start));
    const range = { start, end, bytes: this.fetch(start, end) };
    this.held.push(range);
    range.bytes.catch(() => this.held.splice(this.held.indexOf(range), 1));
    return range.bytes;
  }

  private async fetch(start: number, end: number): Promise<ArrayBuffer> {
    const response = await fetch(this.url, { headers: { Range: `bytes=${start}-${end - 1}` } });
    if (!response.ok) throw new Error(`${new URL(this.url).pathname} answered ${response.status}`);
    const bytes = await response.arrayBuffer();
    // A host that ignores Range sends the whole file: keep it all.
    if (response.status === 200) {
      this.held.push({ start: 0, end: bytes.byteLength, bytes: Promise.resolve(bytes) });
      return bytes.slice(start, end);
    }
    return bytes;
  }
}

/** Runs `work` on every item, `PARALLEL` at a time. */
async function eachAtOnce<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
}

/** A row group of a file (or the whole file, `group` -1, when no column is read). */
interface Part {
  readonly file: CatalogueFile;
  readonly group: number;
  readonly rowStart: number;
  readonly rowEnd: number;
}
const partKey = (part: Part) => `${part.file.url}#${part.group}`;

/** What a table holds in DuckDB now: these columns (the rest NULL) of these parts. */
interface Held {
  readonly columns: ReadonlySet<string>;
  readonly parts: ReadonlySet<string>;
  /** Files all of whose rows are held. */
  readonly whole: ReadonlySet<string>;
  /** Whether it is a view of rows with no values (for count(*)) rather than a table. */
  readonly view: boolean;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `catalogueUrl`: where downloads/catalogue.json is; file URLs in it are resolved against it. */
export async function openBrowserDatabase(catalogueUrl: string): Promise<BrowserDatabase> {
  const catalogueHref = new URL(catalogueUrl, location.href);
  const response = await fetch(catalogueHref);
  if (!response.ok) throw new Error(`${catalogueHref.pathname} answered ${response.status}: this site was built without a static tree`);
  const catalogue = (await response.json()) as Catalogue;

  const db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), new Worker(workerUrl));
  await db.instantiate(new URL(wasmUrl, location.href).href);
  await db.open({});
  const connection = await db.connect();
  // Nothing may be fetched from an extension repository: the page must work offline.
  await connection.query('SET autoinstall_known_extensions = false; SET autoload_known_extensions = false');
  // DuckDB-WASM (1.4) truncates to a day or more as DATE, the server's DuckDB (1.5) as TIMESTAMP:
  // the server's way, so both give the same rows.
  await connection.query('CREATE TEMP MACRO date_trunc(part, value) AS CAST(system.main.date_trunc(part, value) AS TIMESTAMP)');
  for (const table of catalogue.tables) await connection.query(createTableSql(table.sqlName, table.columns));
  // Queries are planned over empty tables of the same shapes: a table may be a view for the time
  // being (see load), which a plan would show as what it is made of, not as a scan of the table.
  await connection.query(`CREATE SCHEMA ${PLAN_SCHEMA}`);
  for (const table of catalogue.tables) await connection.query(createTableSql(table.sqlName, table.columns, PLAN_SCHEMA));

  const tables = new Map(catalogue.tables.map((table) => [table.sqlName, table]));
  const typesOf = new Map<string, ColumnTypes>(catalogue.tables.map((table) => [table.sqlName, new Map(table.columns.map((column) => [column.name, browserType(column)]))]));
  const files = new Map<string, { file: RemoteFile; metadata: Promise<FileMetaData> }>();
  /** Columns read so far, by part and column: a query asking again fetches nothing. */
  const vectors = new Map<string, Vector>();
  const held = new Map<string, Held>(catalogue.tables.map((table) => [table.sqlName, { columns: new Set(), parts: new Set(), whole: new Set(), view: false }]));

  const remote = (file: CatalogueFile) => {
    let found = files.get(file.url);
    if (!found) {
      const remoteFile = new RemoteFile(new URL(file.url, catalogueHref).href, file.bytes);
      found = { file: remoteFile, metadata: parquetMetadataAsync(remoteFile, { initialFetchSize: FOOTER_GUESS }) };
      found.metadata.catch(() => files.delete(file.url));
      files.set(file.url, found);
    }
    return found;
  };

  /** The scans of the query, by table; undefined when DuckDB cannot plan it (then every table it names is read whole). */
  async function plan(sql: string): Promise<Scan[] | undefined> {
    // EXPLAIN covers one statement: more than one are read whole.
    if (/;\s*\S/.test(sql.replace(/--[^\n]*/g, '').trim())) return undefined;
    // Statistics of tables not loaded yet would let DuckDB prune scans away from the plan.
    await connection.query(`SET disabled_optimizers = 'statistics_propagation'; SET search_path = '${PLAN_SCHEMA},main'`);
    try {
      const answer = await connection.query(`EXPLAIN (FORMAT JSON) ${sql.replace(/;\s*$/, '')}`);
      const plan = answer.getChild('explain_value')?.get(0);
      return typeof plan === 'string' ? scansOf(plan, typesOf) : undefined;
    } catch (failure) {
      // The query fails the same way when run: nothing to load for it.
      if (/^(Parser|Catalog|Binder) Error/.test(failure instanceof Error ? failure.message : '')) return [];
      return undefined;
    } finally {
      await connection.query('RESET disabled_optimizers; RESET search_path');
    }
  }

  /** The parts of a table its scans may keep a row of, and the columns they read. */
  async function needOf(table: CatalogueTable, scans: readonly Scan[]): Promise<{ columns: CatalogueColumn[]; parts: Part[] }> {
    const types = typesOf.get(table.sqlName)!;
    const columns = table.columns.filter((column) => scans.some((scan) => !scan.columns || scan.columns.has(column.name)));
    const kept = table.files.filter((file) => scans.some((scan) => scanMayRead(scan, fileRanges(file, table.partitionBy, table.timeColumn, types))));
    if (!columns.length) return { columns, parts: kept.map((file) => ({ file, group: -1, rowStart: 0, rowEnd: file.rows })) };
    const parts: Part[] = [];
    await eachAtOnce(kept, async (file) => {
      const metadata = await remote(file).metadata;
      let rowStart = 0;
      metadata.row_groups.forEach((group, index) => {
        const rowEnd = rowStart + Number(group.num_rows);
        const statistics = (column: string) => {
          const chunk = group.columns.find((candidate) => candidate.meta_data?.path_in_schema.join('.') === column);
          const stats = chunk?.meta_data?.statistics;
          const type = types.get(column)!;
          return stats ? { min: statisticValue(stats.min_value ?? stats.min, type, 'min'), max: statisticValue(stats.max_value ?? stats.max, type, 'max') } : undefined;
        };
        if (scans.some((scan) => scanMayRead(scan, statistics))) parts.push({ file, group: index, rowStart, rowEnd });
        rowStart = rowEnd;
      });
    });
    return { columns, parts };
  }

  const covered = (now: Held, columns: readonly CatalogueColumn[], parts: readonly Part[]) =>
    columns.every((column) => now.columns.has(column.name)) && parts.every((part) => now.parts.has(partKey(part)) || now.whole.has(part.file.url));

  /** Makes the table hold these parts of these columns (the rest NULL). */
  async function load(table: CatalogueTable, columns: readonly CatalogueColumn[], parts: readonly Part[]): Promise<void> {
    const vectorKey = (part: Part, column: string) => `${partKey(part)}:${column}`;
    await eachAtOnce(parts.filter((part) => part.group >= 0), async (part) => {
      const missing = columns.filter((column) => !vectors.has(vectorKey(part, column.name)));
      if (!missing.length) return;
      const { file, metadata } = remote(part.file);
      const read = await readColumns(file, await metadata, part.rowStart, part.rowEnd, missing);
      for (const [name, vector] of read) vectors.set(vectorKey(part, name), vector);
    });
    const name = quoteIdentifier(table.sqlName);
    await connection.query(`DROP ${held.get(table.sqlName)!.view ? 'VIEW' : 'TABLE'} IF EXISTS ${name}`);
    if (!columns.length) {
      const rows = parts.reduce((sum, part) => sum + part.rowEnd - part.rowStart, 0);
      // Rows with no value, made as they are read (not stored): enough for count(*), which reads no column.
      const nulls = table.columns.map((column) => `NULL::${browserType(column)} AS ${quoteIdentifier(column.name)}`).join(', ');
      await connection.query(`CREATE VIEW ${name} AS SELECT ${nulls} FROM range(${rows})`);
    } else {
      await connection.query(createTableSql(table.sqlName, table.columns));
    }
    held.set(table.sqlName, { columns: new Set(), parts: new Set(), whole: new Set(), view: !columns.length });
    if (columns.length && parts.length) {
      const names = columns.map((column) => column.name);
      const stream = partsAsArrow(names, parts.map((part) => new Map(names.map((column) => [column, vectors.get(vectorKey(part, column))!]))));
      await connection.insertArrowFromIPCStream(stream, { name: 'odsnap_staging', create: true });
      await connection.query(`INSERT INTO ${name} (${names.map(quoteIdentifier).join(', ')}) SELECT ${columnSql(columns)} FROM odsnap_staging; DROP TABLE odsnap_staging`);
    }
    const groupsOf = new Map<string, number>();
    for (const part of parts) groupsOf.set(part.file.url, (groupsOf.get(part.file.url) ?? 0) + 1);
    const whole = new Set<string>();
    for (const [url, groups] of groupsOf) {
      const metadata = files.get(url)?.metadata;
      if (!columns.length || (metadata && (await metadata).row_groups.length === groups)) whole.add(url);
    }
    held.set(table.sqlName, { columns: new Set(columns.map((column) => column.name)), parts: new Set(parts.map(partKey)), whole, view: !columns.length });
  }

  async function run(sql: string): Promise<TextResult> {
    const scans =
      (await plan(sql)) ??
      catalogue.tables
        .filter((table) => new RegExp(`\\b${escapeRegExp(table.sqlName)}\\b`, 'i').test(sql))
        .map((table): Scan => ({ table: table.sqlName, columns: undefined, conditions: [] }));
    for (const name of new Set(scans.map((scan) => scan.table))) {
      const table = tables.get(name)!;
      const { columns, parts } = await needOf(table, scans.filter((scan) => scan.table === name));
      // More rows than needed do no harm (DuckDB filters them as the query asks): only missing ones are loaded.
      if (!covered(held.get(name)!, columns, parts)) await load(table, columns, parts);
    }
    return textResult((await connection.query(sql)) as unknown as ArrowLike);
  }

  // One query at a time: each makes the tables hold what it needs.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    tables: catalogue.tables.map((table) => table.sqlName),
    query(sql) {
      const result = queue.then(() => run(sql));
      queue = result.catch(() => undefined);
      return result;
    },
  };
}
