import type { Table } from 'apache-arrow';
import { connectLikeServer, OFFLINE, startDuckDB } from './duckdb-start.ts';
import { readCatalogue, type Catalogue } from './downloads-catalogue.ts';
import { createTables, PLAN_SCHEMA } from './held-rows.ts';
import { partsNeeded } from './parts-needed.ts';
import { publishedFiles, type PublishedFiles } from './published-files.ts';
import { queryScans } from './query-scans.ts';
import { rowLoader } from './row-loading.ts';
import { textResult, type ArrowLike, type TextResult } from './sql-result.ts';

/**
 * DuckDB in the browser over the published Parquet files, loaded on first use (this module is
 * imported dynamically, so no other page pays for it). Every table of the downloads catalogue
 * is there under the name `odsnap sql` and `/api/sql` give it, and holds, when a query runs, the
 * rows and columns that query can need besides what earlier queries read: DuckDB plans the query
 * first (query-scans.ts, scan-plan.ts say what each scan reads), files are skipped by the
 * catalogue, row groups by their statistics (parts-needed.ts), and what is left is fetched by HTTP
 * range requests, only the columns asked for (row-loading.ts, parquet-table.ts). `count(*)` of a
 * table reads no file at all: the catalogue has every file's rows.
 */

export interface BrowserDatabase {
  /** Every table's name. */
  readonly tables: readonly string[];
  /** Runs SQL (one or more statements); the result of the last one. */
  query(sql: string): Promise<TextResult>;
  /** Runs a query; its result as Arrow, typed (the table pages' JSON and Parquet downloads). */
  queryArrow(sql: string): Promise<Table>;
  /** A query's rows as a CSV file with a header, written by DuckDB's COPY in its own file system. */
  copyCsv(sql: string): Promise<Uint8Array>;
}

/**
 * `catalogueUrl`: where downloads/catalogue.json is, or a table's own catalogue (its tables alone
 * are queried); file URLs in it are resolved against it.
 * `known`: the catalogue and files a page has read already (a table page), so nothing is fetched twice.
 */
export async function openBrowserDatabase(catalogueUrl: string, known?: { catalogue: Catalogue; files: PublishedFiles }): Promise<BrowserDatabase> {
  const catalogueHref = new URL(catalogueUrl, location.href);
  const catalogue = known?.catalogue ?? (await readCatalogue(catalogueHref));

  const db = await startDuckDB();
  const connection = await connectLikeServer(db, OFFLINE);
  await createTables(connection, catalogue.tables);
  // Queries are planned on a connection of their own, set up once, so that nothing the user SETs
  // on theirs is undone: its search path finds the empty tables first, and it knows the macro.
  const planner = await connectLikeServer(db, `SET search_path = '${PLAN_SCHEMA},main'`);

  const scansOf = queryScans(planner, connection, catalogue.tables);
  const files = known?.files ?? publishedFiles(catalogueHref);
  const rows = rowLoader(connection, files, catalogue.tables);
  const tables = new Map(catalogue.tables.map((table) => [table.sqlName, table]));

  /** Makes the tables hold what the query may need. */
  async function holdFor(sql: string): Promise<void> {
    const scans = await scansOf(sql);
    for (const name of new Set(scans.map((scan) => scan.table))) {
      const table = tables.get(name)!;
      await rows.hold(
        table,
        await partsNeeded(
          table,
          scans.filter((scan) => scan.table === name),
          files,
        ),
      );
    }
  }

  async function copyCsv(sql: string): Promise<Uint8Array> {
    await holdFor(sql);
    const name = `odsnap-view-${Date.now()}.csv`;
    await db.registerEmptyFileBuffer(name);
    try {
      await connection.query(`COPY (${sql}) TO '${name}' (FORMAT CSV, HEADER)`);
      return await db.copyFileToBuffer(name);
    } finally {
      await db.dropFile(name);
    }
  }

  // One query at a time: each makes the tables hold what it needs.
  let queue: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const result = queue.then(work);
    queue = result.catch(() => undefined);
    return result;
  };
  const arrowOf = async (sql: string) => {
    await holdFor(sql);
    return (await connection.query(sql)) as unknown as Table;
  };
  return {
    tables: catalogue.tables.map((table) => table.sqlName),
    query: (sql) => inTurn(async () => textResult((await arrowOf(sql)) as unknown as ArrowLike)),
    queryArrow: (sql) => inTurn(() => arrowOf(sql)),
    copyCsv: (sql) => inTurn(() => copyCsv(sql)),
  };
}
