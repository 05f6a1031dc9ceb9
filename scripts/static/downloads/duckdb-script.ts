import { quoteIdentifier, quoteString } from '../../../core/db/duckdb.ts';
import { viewName } from '../../../core/table.ts';
import type { Snapshot } from '../../../core/snapshot/read.ts';
import { DUCKDB_SCRIPT } from '../../../core/published-tree.ts';
import type { TableDownloads } from './files.ts';

/**
 * The whole snapshot in DuckDB in one line, `downloads/odsnap.sql`: a view per table over its
 * Parquet files, named as in `odsnap sql` and /api/sql (rcn_transactions, …). A tree with an
 * absolute base names the files by URL, so the script works from anywhere DuckDB can read HTTP;
 * a tree with root-relative links names them by their path in the tree, so the script works in
 * the tree's directory.
 */

/** Whether the tree's links are URLs a DuckDB anywhere can read. */
export const absoluteBase = (base: string) => /^https?:\/\//.test(base);

/** How to open the script in the DuckDB CLI: from its URL, or in the tree's directory. */
export const duckdbCommand = (base: string) =>
  absoluteBase(base) ? `curl -sO ${base}/${DUCKDB_SCRIPT} && duckdb -init odsnap.sql` : `duckdb -init ${DUCKDB_SCRIPT}`;

export function duckdbScript(snapshot: Snapshot, tables: readonly TableDownloads[], base: string): string {
  const { manifest } = snapshot;
  const located = (file: { path: string; url: string }) => (absoluteBase(base) ? file.url : file.path);
  const lines = [
    `-- odsnap snapshot ${manifest.id}: every table as a DuckDB view over its Parquet files.`,
    `-- ${manifest.licence.attribution}`,
    `-- Licence: ${manifest.licence.name} (${manifest.licence.url})`,
    '--',
    `-- DuckDB CLI: ${duckdbCommand(base)}`,
    absoluteBase(base)
      ? '-- Files are read over HTTP(S); DuckDB loads its httpfs extension when first asked to.'
      : "-- Paths are relative to the tree's root: run DuckDB in the directory that holds downloads/.",
    '-- In any other DuckDB client, run these statements, then e.g. SELECT count(*) FROM rcn_transactions;',
    '',
  ];
  for (const { dataset, table, files } of tables) {
    const name = quoteIdentifier(viewName(dataset, table.name));
    lines.push(
      `CREATE OR REPLACE VIEW ${name} AS SELECT * FROM read_parquet([`,
      files.map((file) => `  ${quoteString(located(file))}`).join(',\n'),
      '], hive_partitioning = false);',
      `COMMENT ON VIEW ${name} IS ${quoteString(table.doc.en)};`,
      '',
    );
  }
  return lines.join('\n');
}
