import { tableCataloguePath } from '../../../core/published-tree.ts';
import { viewName } from '../../../core/table.ts';
import type { Snapshot } from '../../../core/snapshot/read.ts';
import type { TableDownloads } from './files.ts';

/**
 * odsnap's own description of the downloads, `downloads/catalogue.json`: every table with its
 * columns, the file of their statistics and its own catalogue, and every file with its rows,
 * bytes, sha256, partition values and the time range of its rows (so clients can skip files),
 * each with its CSV twin, and the DuckDB script. The site's downloads page and data-set pages are made from it.
 */
export function catalogueOf(snapshot: Snapshot, tables: readonly TableDownloads[], duckdb: { script: string; command: string; remote: boolean }) {
  const { manifest } = snapshot;
  return {
    snapshot: { id: manifest.id, createdAt: manifest.createdAt, source: manifest.source },
    licence: { id: manifest.licence.id, name: manifest.licence.name, url: manifest.licence.url, attribution: manifest.licence.attribution },
    /** The DuckDB script (see duckdb-script.ts), the command line that opens it, and whether it reads the files over HTTP(S) (else from the tree's directory). */
    duckdb,
    tables: tables.map(({ dataset, table, entry, files, statistics, catalogue }) => ({
      dataset: dataset.name,
      table: table.name,
      sqlName: viewName(dataset, table.name),
      description: table.doc,
      rows: entry.rows,
      key: entry.key,
      partitionBy: entry.partitionBy,
      sortBy: entry.sortBy,
      timeColumn: entry.timeColumn,
      columns: Object.entries(table.columns).map(([name, column]) => ({ name, type: column.sqlType, nullable: column.nullable, description: column.doc })),
      /** Its columns' statistics: nulls, distinct values, least and greatest, a histogram or the commonest values. */
      statistics: statistics.url,
      /** This document with this table alone: what the table's page reads. */
      catalogue: catalogue.url,
      files: files.map(({ url, rows, bytes, sha256, partition, min, max, csv }) => ({
        url,
        rows,
        bytes,
        sha256,
        partition,
        min,
        max,
        csv: { url: csv.url, bytes: csv.bytes, sha256: csv.sha256 },
      })),
    })),
  };
}

/**
 * Each table's own catalogue, at the path its entry links: the same document with that table
 * alone, so that anything reading the whole one reads it too. File URLs are root-relative or
 * absolute, so they resolve from its folder as from the whole one's.
 */
export const tableCatalogues = (catalogue: ReturnType<typeof catalogueOf>) =>
  catalogue.tables.map((table) => ({ path: tableCataloguePath(table.dataset, table.table), catalogue: { ...catalogue, tables: [table] } }));
