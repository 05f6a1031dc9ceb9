import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import { renderContext } from '../../datasets/vocabulary/render.ts';
import { readExpression, readList, rowDecoder } from '../../core/db/columns.ts';
import { openDatabase, quoteIdentifier, type Database } from '../../core/db/duckdb.ts';
import { currentSnapshotId } from '../../core/snapshot/layout.ts';
import { openSnapshot, shapeMismatch, tableFiles, tableSource, type Snapshot } from '../../core/snapshot/read.ts';
import { fingerprint } from '../../datasets/vocabulary/fingerprint.ts';
import { valueOf } from '../../datasets/vocabulary/written.ts';
import { seriesKey } from '../../datasets/answers/crawling.ts';

/**
 * The snapshot a pull builds on: the current one, when it was pulled from the same upstream.
 * It says where each series left off (so only later readings are fetched), what each listed item
 * looked like (so only new or changed details are fetched), and holds the rows and files carried
 * into the new snapshot.
 */
export class Previous {
  private constructor(
    readonly snapshot: Snapshot,
    private readonly db: Database,
  ) {}

  /** The current snapshot if it was pulled from `upstream` and has the declared tables, else why not. */
  static async open(dataDir: string, upstream: string, spillDir: string, datasets: readonly Dataset[]): Promise<Previous | string> {
    if (!(await currentSnapshotId(dataDir))) return 'the data directory holds no snapshot yet';
    const snapshot = await openSnapshot(dataDir);
    const source = snapshot.manifest.source;
    if (source.kind !== 'pull') return `the current snapshot ${snapshot.id} was not pulled (it is a ${source.kind})`;
    if (!sameUpstream(source.upstream, upstream)) return `the current snapshot ${snapshot.id} was pulled from ${source.upstream}`;
    const mismatch = shapeMismatch(snapshot, datasets);
    if (mismatch) return `the current snapshot ${snapshot.id} was written by another version of odsnap (${mismatch})`;
    return new Previous(snapshot, await openDatabase({ memoryLimit: '300MB', spillDir, threads: 2 }));
  }

  get id(): string {
    return this.snapshot.id;
  }

  has(dataset: string, table: string): boolean {
    return Boolean(this.snapshot.manifest.datasets[dataset]?.tables[table]);
  }

  /** The latest `time` (epoch ms) of each series, keyed by seriesKey of its `columns`. */
  async watermarks(dataset: Dataset, table: string, columns: readonly string[], time: string): Promise<Map<string, number>> {
    const marks = new Map<string, number>();
    if (!this.has(dataset.name, table)) return marks;
    const group = columns.map(quoteIdentifier);
    const rows = await this.db.rows<Record<string, unknown>>(
      `SELECT ${[...group, `CAST(epoch_ms(max(${quoteIdentifier(time)})) AS DOUBLE) AS "latest"`].join(', ')}
       FROM ${tableSource(tableFiles(this.snapshot, dataset.name, table))} ${group.length ? `GROUP BY ${group.join(', ')}` : ''}`,
    );
    for (const row of rows) if (row.latest !== null) marks.set(seriesKey(columns.map((c) => row[c])), Number(row.latest));
    return marks;
  }

  /** Fingerprints of a resource as the upstream would have listed each row, by the record field `id`. */
  async fingerprints(dataset: Dataset, resourceName: string, id: string, upstream: string): Promise<Map<string, string>> {
    const resource = dataset.resources[resourceName]!;
    const table = dataset.tables[resource.table]!;
    const prints = new Map<string, string>();
    if (!this.has(dataset.name, table.name)) return prints;
    const columns = Object.entries(table.columns).filter(([name]) => !resource.omits.includes(name));
    const context = renderContext({ baseUrl: upstream });
    const select = columns.map(([name, column]) => readExpression(name, column)).join(', ');
    const decode = rowDecoder(table.columns);
    for await (const batch of this.db.stream(`SELECT ${select} FROM ${tableSource(tableFiles(this.snapshot, dataset.name, table.name))}`)) {
      for (const row of batch) {
        const record = valueOf(resource.render(decode(row), context)) as Record<string, unknown>;
        prints.set(String(record[id]), fingerprint(record));
      }
    }
    return prints;
  }

  /** Rows of one previous file, or of a whole table, as JS rows, in batches; `where` is SQL over its columns. */
  async *rows(
    dataset: Dataset,
    table: string,
    files: readonly string[] = tableFiles(this.snapshot, dataset.name, table),
    where = 'true',
  ): AsyncGenerator<Record<string, unknown>[]> {
    const columns = dataset.tables[table]!.columns;
    const decode = rowDecoder(columns);
    for await (const batch of this.db.stream(`SELECT ${readList(columns)} FROM (SELECT * FROM ${tableSource(files)} WHERE ${where})`)) {
      yield batch.map((row) => decode(row));
    }
  }

  /** Registers a list of values as a one-column table, for `IN` filters over many keys. */
  async keyTable(name: string, keys: Iterable<string>): Promise<void> {
    await this.db.run(`CREATE OR REPLACE TABLE ${quoteIdentifier(name)} (key VARCHAR)`);
    const appender = await this.db.connection.createAppender(name);
    for (const key of keys) {
      appender.appendVarchar(key);
      appender.endRow();
    }
    appender.closeSync();
  }

  close(): void {
    this.db.close();
  }
}

/** Two spellings of one upstream address (a trailing slash aside). */
const sameUpstream = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
