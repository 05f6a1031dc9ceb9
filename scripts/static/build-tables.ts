import { join } from 'node:path';
import { openDatabase, type Database } from '../../core/db/duckdb.ts';
import { paceHeap } from '../../core/heap.ts';
import type { EndpointManifest } from '../../core/snapshot/manifest.ts';
import { markReading } from '../../core/snapshot/readers.ts';
import { assertShape, createViews, openSnapshot, type Snapshot } from '../../core/snapshot/read.ts';
import { kindOf } from '../../datasets/answers/index.ts';
import type { Defaults } from '../../datasets/answers/static-files.ts';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { Endpoint } from '../../datasets/vocabulary/endpoint.ts';
import type { BuildRun } from './build-run.ts';
import { SnapshotPrints } from './snapshot-prints.ts';
import { SnapshotRows } from './snapshot-rows.ts';
import { treesDir } from './tree-state.ts';

/**
 * The first step of a build: the current snapshot's tables, as DuckDB views, that the other steps
 * read; marked as being read, so that `odsnap prune` leaves the snapshot until the build ends.
 */
export interface Tables {
  readonly snapshot: Snapshot;
  readonly db: Database;
  /** Its rows, read as the kinds' files render them. */
  readonly rows: SnapshotRows;
  /** What the upstream defaulted to and added to its envelopes, by endpoint: the tree answers as it did. */
  upstreamOf(endpoint: Endpoint): EndpointManifest | undefined;
  defaultsOf(endpoint: Endpoint): Defaults;
  /** Another connection to the database, closed with it. */
  connect(): Promise<Database>;
  /**
   * Closes the database and every connection to it, once the steps that read it are done: DuckDB
   * keeps what it cached until then, and the site's pages render after, in a process whose memory
   * would otherwise come on top. The build's end closes what is still open.
   */
  close(): void;
}

export async function openTables(dataDir: string, datasets: readonly Dataset[], run: BuildRun, repeatedTextsFrom?: number): Promise<Tables> {
  const snapshot = await openSnapshot(dataDir);
  assertShape(snapshot, datasets);
  run.atEnd(markReading(dataDir, snapshot.id));
  const db = await openDatabase({ threads: 2, memoryLimit: '1GB', spillDir: snapshot.cacheDir });
  // DuckDB would keep what it read of the Parquet files within its limit, as the system's page
  // cache already does: at region scale a quarter of a gigabyte held for nothing.
  await db.run('SET enable_external_file_cache = false');
  const connections: Database[] = [];
  const close = once(() => {
    for (const connection of connections) connection.close();
    db.close();
  });
  run.atEnd(close);
  run.atEnd(paceHeap());
  await createViews(db, snapshot, datasets);
  const upstreamOf = (endpoint: Endpoint) => snapshot.manifest.endpoints?.[endpoint.fullPath];
  return {
    snapshot,
    db,
    rows: new SnapshotRows(db, snapshot, repeatedTextsFrom),
    upstreamOf,
    defaultsOf: (endpoint) => upstreamOf(endpoint)?.defaults ?? {},
    async connect() {
      const connection = await db.connect();
      connections.push(connection);
      return connection;
    },
    close,
  };
}

/**
 * Another connection to the tables, for work done while the main thread renders files (DuckDB
 * would otherwise wait idle): closed when the build ends, its query interrupted if it fails.
 */
export async function connectionTo(tables: Tables, run: BuildRun): Promise<Database> {
  const connection = await tables.connect();
  run.onFailure(() => connection.connection.interrupt());
  return connection;
}

/**
 * The prints of the snapshot's rows (see snapshot-prints.ts), those every endpoint's files will
 * ask for read ahead on `db` (a connection of their own), the first of them while the trees'
 * states are read. Group prints of Parquet files are kept by their sha256 beside the trees; `full` reads them
 * all again.
 */
export function readPrintsAhead(
  db: Database,
  tables: Tables,
  datasets: readonly Dataset[],
  tree: { out: string; full?: boolean },
  run: BuildRun,
): SnapshotPrints {
  const prints = new SnapshotPrints(tables.db, tables.snapshot, tree.full ? undefined : join(treesDir(tree.out), 'prints'));
  run.atEnd(() => prints.settle());
  const wanted = datasets.flatMap((dataset) =>
    dataset.endpoints.flatMap((endpoint) => {
      const prints = kindOf(endpoint.answer).tree.prints?.(endpoint.answer, tables.defaultsOf(endpoint));
      return prints ? [{ dataset, prints }] : [];
    }),
  );
  prints.readAhead(db, wanted, run.failing);
  return prints;
}

/** `close`, run at most once however often it is called. */
function once(close: () => void): () => void {
  let closed = false;
  return () => {
    if (closed) return;
    closed = true;
    close();
  };
}
