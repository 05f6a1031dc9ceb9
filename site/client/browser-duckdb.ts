import * as duckdb from '@duckdb/duckdb-wasm';
// The one bundle the site ships (exception handling: every current browser), copied into the
// build by Vite under _astro/: nothing comes from a CDN, so the page works offline.
import wasmUrl from '@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url';
import workerUrl from '@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js?url';
import type { Vector } from 'apache-arrow';
import { parquetMetadataAsync, type FileMetaData } from 'hyparquet';
import { browserType, columnSql, createTableSql, partsAsArrow, quoteIdentifier, readColumns, type CatalogueColumn } from './parquet-table.ts';
import { RemoteFile } from './remote-file.ts';
import { escapeRegExp, fileRanges, scanMayRead, scansOf, statisticValue, type CatalogueFile, type CataloguePartition, type ColumnTypes, type Scan } from './scan-plan.ts';
import { textResult, type ArrowLike, type TextResult } from './sql-result.ts';

/**
 * DuckDB in the browser over the published Parquet files, loaded on first use (this module is
 * imported dynamically, so no other page pays for it). Every table of the downloads catalogue
 * is there under the name `odsnap sql` and `/api/sql` give it, and holds, when a query runs, the
 * rows and columns that query can need besides what earlier queries read: DuckDB plans the query
 * first (scan-plan.ts says what each scan reads), files are skipped by the catalogue, row groups
 * by their statistics, and what is left is fetched by HTTP range requests, only the columns asked
 * for (parquet-table.ts). `count(*)` of a table reads no file at all: the catalogue has every
 * file's rows.
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
/** Where the rows read so far are: a table's name is a view of them (see Held). */
const ROWS_SCHEMA = 'odsnap_rows';
/** Files fetched at once. */
const PARALLEL = 6;

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
const vectorKey = (part: Part, column: string) => `${partKey(part)}:${column}`;

/**
 * What a table holds now, which only grows: the row groups read, each with the columns read of
 * it (the rest NULL), are rows of its table in ROWS_SCHEMA; files counted (count(*) reads no
 * column) add rows with no value for their rows not read. The table's own name is a view of both.
 * Rows more than a query needs do no harm: the filters that left their parts out drop them too.
 */
interface Held {
  readonly parts: ReadonlyMap<string, { readonly part: Part; readonly columns: ReadonlySet<string> }>;
  readonly counted: ReadonlyMap<string, CatalogueFile>;
}
const nothingHeld: Held = { parts: new Map(), counted: new Map() };

/** Rows of each file that are rows read. */
function rowsRead(held: Held): Map<string, number> {
  const rows = new Map<string, number>();
  for (const { part } of held.parts.values()) rows.set(part.file.url, (rows.get(part.file.url) ?? 0) + part.rowEnd - part.rowStart);
  return rows;
}

/** Whether the table holds these parts of these columns (with no column: all the rows of these files). */
function covered(held: Held, columns: readonly CatalogueColumn[], parts: readonly Part[]): boolean {
  if (columns.length)
    return parts.every((part) => {
      const read = held.parts.get(partKey(part))?.columns;
      return read !== undefined && columns.every((column) => read.has(column.name));
    });
  const read = rowsRead(held);
  return parts.every((part) => held.counted.has(part.file.url) || read.get(part.file.url) === part.file.rows);
}

/** The view named as the table: its rows read and, made as they are read (not stored), its counted rows with no value. */
function viewSql(table: CatalogueTable, held: Held): string {
  const read = rowsRead(held);
  const empty = [...held.counted.values()].reduce((sum, file) => sum + Math.max(0, file.rows - (read.get(file.url) ?? 0)), 0);
  const name = quoteIdentifier(table.sqlName);
  const nulls = table.columns.map((column) => `NULL::${browserType(column)} AS ${quoteIdentifier(column.name)}`).join(', ');
  return `CREATE OR REPLACE VIEW ${name} AS SELECT * FROM ${ROWS_SCHEMA}.${name}${empty > 0 ? ` UNION ALL SELECT ${nulls} FROM range(${empty})` : ''}`;
}

/** The SQL without its comments and string literals: where it names tables. */
const sqlWords = (sql: string) => sql.replace(/--[^\n]*|\/\*[\s\S]*?\*\/|'(?:[^']|'')*'/g, ' ');

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
  // Queries are planned over empty tables of the same shapes, not over the views named as the
  // tables (see Held): a plan would show a view's rows with no value as no scan of the table.
  await connection.query(`CREATE SCHEMA ${ROWS_SCHEMA}; CREATE SCHEMA ${PLAN_SCHEMA}`);
  for (const table of catalogue.tables) {
    await connection.query(`${createTableSql(table.sqlName, table.columns, ROWS_SCHEMA)}; ${createTableSql(table.sqlName, table.columns, PLAN_SCHEMA)}`);
    await connection.query(viewSql(table, nothingHeld));
  }
  // Queries are planned on a connection of their own, set up once, so that nothing the user SETs
  // on theirs is undone: its search path finds the empty tables first, and it knows the macro.
  const planner = await db.connect();
  await planner.query(`SET search_path = '${PLAN_SCHEMA},main'`);
  await planner.query('CREATE TEMP MACRO date_trunc(part, value) AS CAST(system.main.date_trunc(part, value) AS TIMESTAMP)');

  const tables = new Map(catalogue.tables.map((table) => [table.sqlName, table]));
  const typesOf = new Map<string, ColumnTypes>(catalogue.tables.map((table) => [table.sqlName, new Map(table.columns.map((column) => [column.name, browserType(column)]))]));
  const files = new Map<string, { file: RemoteFile; metadata: Promise<FileMetaData> }>();
  /** Columns read so far, by part and column: a query asking again fetches nothing. */
  const vectors = new Map<string, Vector>();
  const held = new Map<string, Held>(catalogue.tables.map((table) => [table.sqlName, nothingHeld]));

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

  /** The scans of the query, by table; `fails` when it fails to bind; undefined when DuckDB cannot plan it. */
  async function plan(sql: string): Promise<Scan[] | 'fails' | undefined> {
    // EXPLAIN covers one statement: more than one are read whole.
    if (/;\s*\S/.test(sql.replace(/--[^\n]*/g, '').trim())) return undefined;
    const explain = `EXPLAIN (FORMAT JSON) ${sql.replace(/;\s*$/, '')}`;
    const bindFails = (failure: unknown) => /^(Parser|Catalog|Binder) Error/.test(failure instanceof Error ? failure.message : '');
    // Statistics of tables not loaded yet would let DuckDB prune scans away from the plan. The
    // option is the database's, not the connection's: off for the plan alone, then as it was (the
    // user's own setting included), so the user's queries keep it.
    const disabled = String((await planner.query("SELECT current_setting('disabled_optimizers') AS value")).getChild('value')?.get(0) ?? '');
    await planner.query(`SET disabled_optimizers = '${[disabled, 'statistics_propagation'].filter(Boolean).join(',')}'`);
    try {
      const answer = await planner.query(explain);
      const plan = answer.getChild('explain_value')?.get(0);
      return typeof plan === 'string' ? scansOf(plan, typesOf) : undefined;
    } catch (failure) {
      if (!bindFails(failure)) return undefined;
      // A name only the user's connection knows (a TEMP table, their search path) is no failure:
      // the query is then not planned, and the tables it names are read whole.
      if (/^Catalog Error/.test(failure instanceof Error ? failure.message : '')) {
        try {
          await connection.query(explain);
          return undefined;
        } catch (again) {
          if (!bindFails(again)) return undefined;
        }
      }
      // The query fails the same way when run: nothing to load for it.
      return 'fails';
    } finally {
      await planner.query(`SET disabled_optimizers = '${disabled.replaceAll("'", "''")}'`);
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

  /** Makes the table hold, besides what it holds, these parts of these columns (with no column: all the rows of these files). */
  async function load(table: CatalogueTable, columns: readonly CatalogueColumn[], parts: readonly Part[]): Promise<void> {
    const now = held.get(table.sqlName)!;
    const next: Held = columns.length
      ? { parts: await readRows(table, now, columns, parts), counted: now.counted }
      : { parts: now.parts, counted: new Map([...now.counted, ...parts.map((part) => [part.file.url, part.file] as const)]) };
    await connection.query(viewSql(table, next));
    held.set(table.sqlName, next);
  }

  /** Reads these parts of these columns into the table of rows read, keeping what it has; what it then holds. */
  async function readRows(table: CatalogueTable, now: Held, columns: readonly CatalogueColumn[], parts: readonly Part[]): Promise<Held['parts']> {
    await eachAtOnce(parts, async (part) => {
      const missing = columns.filter((column) => !vectors.has(vectorKey(part, column.name)));
      if (!missing.length) return;
      const { file, metadata } = remote(part.file);
      const read = await readColumns(file, await metadata, part.rowStart, part.rowEnd, missing);
      for (const [name, vector] of read) vectors.set(vectorKey(part, name), vector);
      // The columns' bytes are not read again (their vectors are kept): the file may let them go.
      for (const chunk of (await metadata).row_groups[part.group]?.columns ?? []) {
        const meta = chunk.meta_data;
        if (!meta || !missing.some((column) => column.name === meta.path_in_schema[0])) continue;
        const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
        file.release(start, start + Number(meta.total_compressed_size));
      }
    });
    const read = new Map(now.parts);
    for (const part of parts) read.set(partKey(part), { part, columns: new Set([...(read.get(partKey(part))?.columns ?? []), ...columns.map((column) => column.name)]) });
    // New row groups are added to the table; a row group held gaining columns has it made again, from the vectors held (nothing is fetched twice).
    const widened = parts.some((part) => {
      const before = now.parts.get(partKey(part))?.columns;
      return before !== undefined && columns.some((column) => !before.has(column.name));
    });
    if (widened) await connection.query(`DROP TABLE ${ROWS_SCHEMA}.${quoteIdentifier(table.sqlName)}; ${createTableSql(table.sqlName, table.columns, ROWS_SCHEMA)}`);
    await insertRows(table, widened ? [...read.values()] : parts.filter((part) => !now.parts.has(partKey(part))).map((part) => read.get(partKey(part))!));
    return read;
  }

  /** Row groups' rows into the table of rows read, each with its columns (the rest NULL). */
  async function insertRows(table: CatalogueTable, parts: readonly { part: Part; columns: ReadonlySet<string> }[]): Promise<void> {
    // Row groups with the same columns go in together.
    const alike = new Map<string, { columns: CatalogueColumn[]; parts: Part[] }>();
    for (const { part, columns } of parts) {
      const shared = table.columns.filter((column) => columns.has(column.name));
      const key = JSON.stringify(shared.map((column) => column.name));
      if (!alike.has(key)) alike.set(key, { columns: shared, parts: [] });
      alike.get(key)!.parts.push(part);
    }
    for (const { columns, parts: group } of alike.values()) {
      const names = columns.map((column) => column.name);
      const stream = partsAsArrow(names, group.map((part) => new Map(names.map((column) => [column, vectors.get(vectorKey(part, column))!]))));
      await connection.insertArrowFromIPCStream(stream, { name: 'odsnap_staging', create: true });
      await connection.query(
        `INSERT INTO ${ROWS_SCHEMA}.${quoteIdentifier(table.sqlName)} (${names.map(quoteIdentifier).join(', ')}) SELECT ${columnSql(columns)} FROM odsnap_staging; DROP TABLE odsnap_staging`,
      );
    }
  }

  /**
   * What the query reads of each table. A table the SQL names with no scan of it in the plan, or
   * when there is no plan, is read whole: rows are never left out on a guess.
   */
  async function scansFor(sql: string): Promise<Scan[]> {
    const planned = await plan(sql);
    if (planned === 'fails') return [];
    const words = sqlWords(sql);
    const unplanned = catalogue.tables.filter((table) => !planned?.some((scan) => scan.table === table.sqlName) && new RegExp(`\\b${escapeRegExp(table.sqlName)}\\b`, 'i').test(words));
    return [...(planned ?? []), ...unplanned.map((table): Scan => ({ table: table.sqlName, columns: undefined, conditions: [] }))];
  }

  async function run(sql: string): Promise<TextResult> {
    const scans = await scansFor(sql);
    for (const name of new Set(scans.map((scan) => scan.table))) {
      const table = tables.get(name)!;
      const { columns, parts } = await needOf(table, scans.filter((scan) => scan.table === name));
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
