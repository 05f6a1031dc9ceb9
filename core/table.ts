import type { Text } from './text.ts';

/**
 * A table as a snapshot stores it: Parquet files of typed columns, partitioned and sorted as
 * declared. Data sets declare their tables in these terms (datasets/vocabulary/table.ts); the
 * snapshot's reader and writer, and every engine, read them.
 */

/**
 * How a column's values travel between DuckDB and JavaScript. Rows in JS use plain values:
 * decimals and days as strings (exact, as v1 writes them), instants as epoch milliseconds,
 * JSON as parsed values.
 */
export type ColumnKind = 'varchar' | 'integer' | 'double' | 'boolean' | 'day' | 'instant' | 'decimal' | 'json' | 'list' | 'struct-list';

export interface Column<T = unknown> {
  readonly kind: ColumnKind;
  /** DuckDB type as written to Parquet. */
  readonly sqlType: string;
  readonly nullable: boolean;
  readonly doc: Text;
  /** Never set: carries the JS value type for `RowOf`. */
  readonly value?: T;
  /** Set for a column worked out from other tables rather than parsed: see `derived`. */
  readonly derive?: Derivation;
  /**
   * What the values stand for, where the type does not say: `code`, numbers that name things (a
   * term's code), not amounts; `structured-text`, JSON or geometry kept as text. A table's column
   * statistics describe a code by its commonest values, not a histogram, and structured text by
   * its nulls and distinct values alone.
   */
  readonly meaning?: 'code' | 'structured-text';
}

/**
 * How a derived column is worked out when a snapshot is written, after the data set's other
 * tables: `sql`, over their views (named as in charts and /api/sql, e.g. `rcn_transactions`),
 * answers the table's key columns and `value`. Rows without an answer get null.
 */
export interface Derivation {
  readonly sql: string;
}

export type Columns = Readonly<Record<string, Column>>;

export type DerivedColumn = { readonly derive: Derivation };
/** A column a pull fills in (see `listPosition`): parsers and generators leave it out. */
export type PulledColumn = { readonly pulled: true };
type Filled = DerivedColumn | PulledColumn;
type ValueOf<C> = C extends Column<infer T> ? T : never;

/**
 * The JS row of a table: one property per column. Derived columns are optional: parsers and
 * generators leave them out, the snapshot writer fills them in.
 */
export type RowOf<C extends Columns> = { -readonly [K in keyof C as C[K] extends Filled ? never : K]: ValueOf<C[K]> } & {
  -readonly [K in keyof C as C[K] extends Filled ? K : never]?: ValueOf<C[K]>;
};

/**
 * A hive-style partition key: a column's value (`counter=abc` for counter_id) or the UTC year or
 * month or day of the month of a day or instant column (`year=2024`, `month=05`, `day=31`). Its name is no column's: readers of
 * a table's folder with hive partitioning (pandas, pyarrow, polars, DuckDB) add a column by that
 * name beside the file's own, and pyarrow refuses to merge one it types otherwise.
 */
export interface Partition<Name extends string = string> {
  readonly name: string;
  readonly column: Name;
  readonly part?: 'year' | 'month' | 'day';
}

export interface TableSpec<C extends Columns> {
  readonly doc: Text;
  readonly columns: C;
  /** Columns that identify a row; pull dedupes on them. Without a key the whole row is the identity. */
  readonly key?: readonly (keyof C & string)[];
  readonly partitionBy?: readonly Partition<keyof C & string>[];
  /** Order of rows inside each file, chosen for the queries the endpoints make. */
  readonly sortBy: readonly (keyof C & string)[];
  /** The column that places a row in time; its min and max are recorded per file. */
  readonly timeColumn?: keyof C & string;
  /**
   * The table keeps captures of a live view (what the upstream shows now), its time column being
   * when odsnap captured them, on the clock of the pull, not a date of the data: pages show their
   * range apart from the coverage of the records' own dates.
   */
  readonly liveCaptures?: true;
  /**
   * How a pull's changes to the table are published (see core/snapshot/changes.ts): `records`,
   * each record added, changed (old and new values) or removed, by key (a register); `days`,
   * counts per day of the time column (a series too big to list). Default: `days` for a table
   * with a time column, else `records`.
   */
  readonly changes?: 'records' | 'days';
}

export type WithExtra<C extends Columns> = C & { readonly extra: Column<unknown>; readonly upstream_json: Column<string | null> };

export interface Table<C extends Columns = Columns> extends Omit<TableSpec<C>, 'columns'> {
  readonly name: string;
  readonly columns: WithExtra<C>;
}

/** What a snapshot stores of a data set: its name, the prefix of its SQL views, its tables. */
export interface StoredDataset {
  readonly name: string;
  /** `<name>` with `_` for `-`, e.g. `bike_counter`. */
  readonly sqlName: string;
  readonly tables: Readonly<Record<string, Table>>;
}

/** How a pull's changes to a table are published: see TableSpec.changes. A table without a key lists no records, only counts. */
export const changesOf = (table: Pick<Table, 'changes' | 'timeColumn' | 'key'>): 'records' | 'days' | 'counts' =>
  (table.changes ?? (table.timeColumn ? 'days' : 'records')) === 'days' ? (table.timeColumn ? 'days' : 'counts') : table.key ? 'records' : 'counts';

/** The name SQL reads a table by (charts, derived columns, /api/sql, the serving database): `<data set>_<table>`, e.g. rcn_transactions. */
export const viewName = (dataset: Pick<StoredDataset, 'sqlName'>, table: string) => `${dataset.sqlName}_${table}`;
