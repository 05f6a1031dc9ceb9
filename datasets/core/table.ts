import { column, nullable, type Column, type Columns } from './column.ts';
import type { Text } from './text.ts';

/**
 * A hive-style partition key: a column's value (`counter_id=abc`) or the UTC year or month of a
 * day or instant column (`year=2024`, `month=05`).
 */
export interface Partition<Name extends string = string> {
  readonly name: string;
  readonly column: Name;
  readonly part?: 'year' | 'month';
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
}

/** Every table keeps what an upstream sends beyond the declared fields, so nothing is dropped. */
export const extraColumn = nullable(
  column.json({
    en: 'Fields the upstream sent that the v1 spec does not name, as a JSON merge patch over the rendered resource; null when there were none.',
    pl: 'Pola przesłane przez źródło, których specyfikacja v1 nie wymienia, jako łatka JSON Merge Patch na wyrenderowany zasób; null, gdy ich nie było.',
  }),
);

export type WithExtra<C extends Columns> = C & { readonly extra: Column<unknown> };

export interface Table<C extends Columns = Columns> extends Omit<TableSpec<C>, 'columns'> {
  readonly name: string;
  readonly columns: WithExtra<C>;
}

/** Declares a Parquet table. Its name comes from its key in the data set's `tables`. */
export const defineTable = <C extends Columns>(spec: TableSpec<C>): TableSpec<C> => spec;
