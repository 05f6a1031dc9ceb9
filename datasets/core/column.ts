import type { z } from 'zod';
import { docOf } from './field.ts';
import type { Text } from './text.ts';

/**
 * How a column's values travel between DuckDB and JavaScript. Rows in JS use plain values:
 * decimals and days as strings (exact, as v1 writes them), instants as epoch milliseconds,
 * JSON as parsed values.
 */
export type ColumnKind =
  | 'varchar'
  | 'integer'
  | 'double'
  | 'boolean'
  | 'day'
  | 'instant'
  | 'decimal'
  | 'json'
  | 'list'
  | 'struct-list';

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

type DerivedColumn = { readonly derive: Derivation };
type ValueOf<C> = C extends Column<infer T> ? T : never;

/**
 * The JS row of a table: one property per column. Derived columns are optional: parsers and
 * generators leave them out, the snapshot writer fills them in.
 */
export type RowOf<C extends Columns> = { -readonly [K in keyof C as C[K] extends DerivedColumn ? never : K]: ValueOf<C[K]> } & {
  -readonly [K in keyof C as C[K] extends DerivedColumn ? K : never]?: ValueOf<C[K]>;
};

/** Column docs are either written out or borrowed from the resource field the column stores. */
type DocSource = Text | z.ZodType;

function textOf(source: DocSource): Text {
  if ('en' in source && 'pl' in source) return source as Text;
  const borrowed = docOf(source as z.ZodType);
  if (!borrowed) throw new Error('a column borrows its docs from a field that has none');
  return borrowed;
}

const make =
  <T>(kind: ColumnKind, sqlType: string) =>
  (doc: DocSource): Column<T> => ({ kind, sqlType, nullable: false, doc: textOf(doc) });

export const column = {
  varchar: make<string>('varchar', 'VARCHAR'),
  integer: make<number>('integer', 'INTEGER'),
  smallint: make<number>('integer', 'SMALLINT'),
  double: make<number>('double', 'DOUBLE'),
  boolean: make<boolean>('boolean', 'BOOLEAN'),
  day: make<string>('day', 'DATE'),
  instant: make<number>('instant', 'TIMESTAMPTZ'),
  decimal: (precision: number, scale: number, doc: DocSource) =>
    make<string>('decimal', `DECIMAL(${precision},${scale})`)(doc),
  json: make<unknown>('json', 'JSON'),
  varcharList: make<string[]>('list', 'VARCHAR[]'),
  /** A list of structs, e.g. a sensor legend: `{ from: 'DOUBLE', color: 'VARCHAR' }`. */
  structList: <T extends object>(fields: Readonly<Record<string, string>>, doc: DocSource): Column<T[]> =>
    make<T[]>(
      'struct-list',
      `STRUCT(${Object.entries(fields)
        .map(([name, type]) => `"${name}" ${type}`)
        .join(', ')})[]`,
    )(doc),
};

/** The same column, allowing null. */
export const nullable = <T>(c: Column<T>): Column<T | null> => ({ ...c, nullable: true }) as Column<T | null>;

/** A column worked out from the data set's other tables when the snapshot is written (see Derivation); null where they have no answer. */
export const derived = <T>(c: Column<T>, derivation: Derivation): Column<T | null> & DerivedColumn => ({ ...c, nullable: true, derive: derivation }) as Column<T | null> & DerivedColumn;
