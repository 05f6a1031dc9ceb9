import type { Database } from '../db/duckdb.ts';
import { quoteIdentifier, quoteString } from '../db/duckdb.ts';
import type { StoredDataset } from '../table.ts';
import type { FileManifest, TableManifest } from './manifest.ts';
import { tableSource, type Snapshot } from './read.ts';

/**
 * What changed in each table between two snapshots. A file whose sha256 is the same in both
 * manifests holds the same rows in both and is never read: only the files either side changed
 * are, so a day's pull is compared in seconds however long the history. Rows of a keyed table are
 * matched by key: added, removed, or changed (with the columns that changed); a change only in
 * the columns a pull writes about the record (`pulled`, e.g. its place in the upstream's list) is
 * counted apart, as reordered. Rows of a table without a key are compared whole, as multisets.
 */

export interface TableDiff {
  readonly dataset: string;
  readonly table: string;
  readonly key: readonly string[] | null;
  /** Files compared unread (the same in both), and files read. */
  readonly files: { readonly same: number; readonly read: number };
  readonly added: number;
  readonly removed: number;
  readonly changed: number;
  /** Rows whose only change is in columns a pull writes about them (their place in a list). */
  readonly reordered: number;
  /** How many changed rows each column changed in. */
  readonly columns: Readonly<Record<string, number>>;
  /** A few keys of each kind of change, `/` between a key's parts (keyed tables only). */
  readonly examples: { readonly added: readonly string[]; readonly removed: readonly string[]; readonly changed: readonly string[] };
}

export interface SnapshotDiff {
  readonly from: string;
  readonly to: string;
  readonly tables: readonly TableDiff[];
}

const EXAMPLES = 5;

export async function diffSnapshots(db: Database, from: Snapshot, to: Snapshot, datasets: readonly StoredDataset[], options: { dataset?: string; onTable?: (name: string) => void } = {}): Promise<SnapshotDiff> {
  const tables: TableDiff[] = [];
  const names = [...new Set([...Object.keys(from.manifest.datasets), ...Object.keys(to.manifest.datasets)])].filter((name) => options.dataset === undefined || name === options.dataset);
  for (const name of names) {
    const definition = datasets.find((dataset) => dataset.name === name);
    const tableNames = [...new Set([...Object.keys(from.manifest.datasets[name]?.tables ?? {}), ...Object.keys(to.manifest.datasets[name]?.tables ?? {})])];
    for (const table of tableNames) {
      options.onTable?.(`${name}/${table}`);
      const pulled = Object.entries(definition?.tables[table]?.columns ?? {}).filter(([, column]) => 'pulled' in column).map(([column]) => column);
      tables.push(await diffTable(db, name, table, side(from, name, table), side(to, name, table), pulled));
    }
  }
  return { from: from.id, to: to.id, tables };
}

interface Side {
  readonly manifest?: TableManifest;
  /** Absolute paths, by the file's path in the snapshot. */
  readonly files: ReadonlyMap<string, FileManifest & { readonly absolute: string }>;
}

function side(snapshot: Snapshot, dataset: string, table: string): Side {
  const manifest = snapshot.manifest.datasets[dataset]?.tables[table];
  return { manifest, files: new Map((manifest?.files ?? []).map((file) => [file.path, { ...file, absolute: `${snapshot.dir}/${file.path}` }])) };
}

async function diffTable(db: Database, dataset: string, table: string, from: Side, to: Side, pulled: readonly string[]): Promise<TableDiff> {
  const same = [...from.files.values()].filter((file) => to.files.get(file.path)?.sha256 === file.sha256);
  const sameSet = new Set(same.map((file) => file.path));
  const read = (side: Side) => [...side.files.values()].filter((file) => !sameSet.has(file.path)).map((file) => file.absolute);
  const [before, after] = [read(from), read(to)];
  const key = (to.manifest ?? from.manifest)!.key;
  const nothing: TableDiff = { dataset, table, key, files: { same: same.length, read: before.length + after.length }, added: 0, removed: 0, changed: 0, reordered: 0, columns: {}, examples: { added: [], removed: [], changed: [] } };
  if (!before.length && !after.length) return nothing;

  // A side with no file left to read is the other's columns with no rows.
  const relation = (files: string[], other: string[]) => (files.length ? `SELECT * FROM ${tableSource(files)}` : `SELECT * FROM ${tableSource(other)} WHERE false`);
  await db.run(`CREATE OR REPLACE TEMP VIEW __before AS ${relation(before, after)}`);
  await db.run(`CREATE OR REPLACE TEMP VIEW __after AS ${relation(after, before)}`);
  const columnsOf = async (view: string) => (await db.rows<{ column_name: string }>(`SELECT column_name FROM (DESCRIBE ${view})`)).map((row) => row.column_name);
  const [beforeColumns, afterColumns] = [await columnsOf('__before'), await columnsOf('__after')];
  const shared = afterColumns.filter((column) => beforeColumns.includes(column));
  const data = shared.filter((column) => !pulled.includes(column) && !(key ?? []).includes(column));

  if (!key) {
    const list = shared.filter((column) => !pulled.includes(column)).map(quoteIdentifier).join(', ');
    const [counts] = await db.rows<{ added: bigint; removed: bigint }>(
      `SELECT (SELECT count(*) FROM (SELECT ${list} FROM __after EXCEPT ALL SELECT ${list} FROM __before)) AS added, (SELECT count(*) FROM (SELECT ${list} FROM __before EXCEPT ALL SELECT ${list} FROM __after)) AS removed`,
    );
    return { ...nothing, added: Number(counts!.added), removed: Number(counts!.removed) };
  }

  const keyText = `concat_ws('/', ${key.map((column) => `CAST(coalesce(a.${quoteIdentifier(column)}, b.${quoteIdentifier(column)}) AS VARCHAR)`).join(', ')})`;
  const differs = (column: string) => `a.${quoteIdentifier(column)} IS DISTINCT FROM b.${quoteIdentifier(column)}`;
  const changedColumns = data.length ? `list_filter([${data.map((column) => `CASE WHEN ${differs(column)} THEN ${quoteString(column)} END`).join(', ')}], c -> c IS NOT NULL)` : `[]::VARCHAR[]`;
  const movedOnly = pulled.filter((column) => shared.includes(column)).map(differs).join(' OR ') || 'false';
  await db.run(
    `CREATE OR REPLACE TEMP TABLE __changes AS
     SELECT ${keyText} AS key,
            CASE WHEN a.__present IS NULL THEN 'added' WHEN b.__present IS NULL THEN 'removed' ELSE 'changed' END AS change,
            ${changedColumns} AS columns,
            (${movedOnly}) AS moved
     FROM (SELECT *, true AS __present FROM __before) a
     FULL OUTER JOIN (SELECT *, true AS __present FROM __after) b ON ${key.map((column) => `a.${quoteIdentifier(column)} = b.${quoteIdentifier(column)}`).join(' AND ')}`,
  );
  await db.run(`DELETE FROM __changes WHERE change = 'changed' AND len(columns) = 0 AND NOT moved`);
  const counts = await db.rows<{ change: string; rows: bigint; reordered: bigint }>(
    `SELECT change, count(*) FILTER (WHERE change <> 'changed' OR len(columns) > 0) AS rows, count(*) FILTER (WHERE change = 'changed' AND len(columns) = 0) AS reordered FROM __changes GROUP BY change`,
  );
  const count = (change: string) => Number(counts.find((row) => row.change === change)?.rows ?? 0);
  const columns = await db.rows<{ column: string; rows: bigint }>(`SELECT "column", count(*) AS "rows" FROM (SELECT unnest(columns) AS "column" FROM __changes WHERE change = 'changed') GROUP BY ALL ORDER BY "rows" DESC, "column"`);
  const examples = await db.rows<{ change: string; keys: string[] }>(
    `SELECT change, list(key ORDER BY key) AS keys FROM (SELECT change, key, row_number() OVER (PARTITION BY change ORDER BY key) AS n FROM __changes WHERE change <> 'changed' OR len(columns) > 0) WHERE n <= ${EXAMPLES} GROUP BY change`,
  );
  const examplesOf = (change: string) => examples.find((row) => row.change === change)?.keys ?? [];
  await db.run('DROP TABLE __changes');
  return {
    ...nothing,
    added: count('added'),
    removed: count('removed'),
    changed: count('changed'),
    reordered: Number(counts.find((row) => row.change === 'changed')?.reordered ?? 0),
    columns: Object.fromEntries(columns.map((row) => [row.column, Number(row.rows)])),
    examples: { added: examplesOf('added'), removed: examplesOf('removed'), changed: examplesOf('changed') },
  };
}
