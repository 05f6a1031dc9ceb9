import * as duckdb from '@duckdb/duckdb-wasm';
// The one bundle the site ships (exception handling: every current browser), copied into the
// build by Vite under _astro/: nothing comes from a CDN, so the page works offline.
import wasmUrl from '@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url';
import workerUrl from '@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js?url';
import { columnSql, createTableSql, parquetAsArrow, quoteIdentifier, type CatalogueColumn } from './parquet-table.ts';
import { textResult, type ArrowLike, type TextResult } from './sql-result.ts';

/**
 * DuckDB in the browser over the published Parquet files, loaded on first use (this module is
 * imported dynamically, so no other page pays for it). Every table of the downloads catalogue
 * is there under the name `odsnap sql` and `/api/sql` give it; a table's files are read (with
 * hyparquet, see parquet-table.ts) the first time a query names it.
 */

/** The part of downloads/catalogue.json read here (scripts/static/downloads.ts writes it). */
interface Catalogue {
  readonly tables: readonly { readonly sqlName: string; readonly columns: readonly CatalogueColumn[]; readonly files: readonly { readonly url: string }[] }[];
}

export interface BrowserDatabase {
  /** Every table's name. */
  readonly tables: readonly string[];
  /** Runs SQL (one or more statements); the result of the last one. */
  query(sql: string): Promise<TextResult>;
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

  const loaded = new Map<string, Promise<void>>();
  const load = (table: Catalogue['tables'][number]) => {
    let done = loaded.get(table.sqlName);
    if (!done) {
      done = (async () => {
        await connection.query(createTableSql(table.sqlName, table.columns));
        for (const [i, file] of table.files.entries()) {
          const staging = `odsnap_staging_${i}`;
          await connection.insertArrowFromIPCStream(await parquetAsArrow(new URL(file.url, catalogueHref).href, table.columns), { name: staging, create: true });
          await connection.query(`INSERT INTO ${quoteIdentifier(table.sqlName)} SELECT ${columnSql(table.columns)} FROM ${staging}; DROP TABLE ${staging}`);
        }
      })();
      // A failed load is tried again by the next query that names the table.
      done.catch(() => loaded.delete(table.sqlName));
      loaded.set(table.sqlName, done);
    }
    return done;
  };

  return {
    tables: catalogue.tables.map((table) => table.sqlName),
    async query(sql) {
      // Tables a query names are loaded first (a name inside a string only loads a table early).
      const named = catalogue.tables.filter((table) => new RegExp(`\\b${escapeRegExp(table.sqlName)}\\b`, 'i').test(sql));
      for (const table of named) {
        if (loaded.has(table.sqlName)) await loaded.get(table.sqlName);
        else {
          await connection.query(`DROP TABLE IF EXISTS ${quoteIdentifier(table.sqlName)}`);
          await load(table);
        }
      }
      return textResult((await connection.query(sql)) as unknown as ArrowLike);
    },
  };
}
