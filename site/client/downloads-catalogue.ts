import { browserType, type CatalogueColumn } from './parquet-table.ts';
import type { CatalogueFile, CataloguePartition, ColumnTypes } from './scan-plan.ts';

/**
 * The downloads catalogue (downloads/catalogue.json): the tables the query page has and their
 * files; or a table's own (downloads/<data set>/<table>.catalogue.json), the same with it alone.
 */

/** The part of downloads/catalogue.json read here (scripts/static/downloads/catalogue.ts writes it). */
export interface CatalogueTable {
  readonly sqlName: string;
  readonly columns: readonly CatalogueColumn[];
  readonly partitionBy: readonly CataloguePartition[];
  readonly timeColumn?: string | null;
  readonly files: readonly CatalogueFile[];
}
export interface Catalogue {
  readonly tables: readonly CatalogueTable[];
}

/** The catalogue at `href`; a site built without a static tree has none. */
export async function readCatalogue(href: URL): Promise<Catalogue> {
  const response = await fetch(href);
  if (!response.ok) throw new Error(`${href.pathname} answered ${response.status}: this site was built without a static tree`);
  return (await response.json()) as Catalogue;
}

/** Each column's type in the browser's DuckDB, by name. */
export const columnTypes = (table: CatalogueTable): ColumnTypes => new Map(table.columns.map((column) => [column.name, browserType(column)]));
