import { connectLikeServer, OFFLINE, startDuckDB } from './duckdb-start.ts';
import { readCatalogue } from './downloads-catalogue.ts';
import { createTables, PLAN_SCHEMA } from './held-rows.ts';
import { partsNeeded } from './parts-needed.ts';
import { publishedFiles } from './published-files.ts';
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
}

/** `catalogueUrl`: where downloads/catalogue.json is; file URLs in it are resolved against it. */
export async function openBrowserDatabase(catalogueUrl: string): Promise<BrowserDatabase> {
  const catalogueHref = new URL(catalogueUrl, location.href);
  const catalogue = await readCatalogue(catalogueHref);

  const db = await startDuckDB();
  const connection = await connectLikeServer(db, OFFLINE);
  await createTables(connection, catalogue.tables);
  // Queries are planned on a connection of their own, set up once, so that nothing the user SETs
  // on theirs is undone: its search path finds the empty tables first, and it knows the macro.
  const planner = await connectLikeServer(db, `SET search_path = '${PLAN_SCHEMA},main'`);

  const scansOf = queryScans(planner, connection, catalogue.tables);
  const files = publishedFiles(catalogueHref);
  const rows = rowLoader(connection, files, catalogue.tables);
  const tables = new Map(catalogue.tables.map((table) => [table.sqlName, table]));

  async function run(sql: string): Promise<TextResult> {
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
