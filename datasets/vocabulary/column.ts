import type { z } from 'zod';
import { docOf } from './field.ts';
import type { Text } from '../../core/text.ts';
import type { Column, ColumnKind, Derivation, DerivedColumn } from '../../core/table.ts';

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
  decimal: (precision: number, scale: number, doc: DocSource) => make<string>('decimal', `DECIMAL(${precision},${scale})`)(doc),
  json: make<unknown>('json', 'JSON'),
  varcharList: make<string[]>('list', 'VARCHAR[]'),
  /** Lists of coordinates, e.g. outlines as [lon, lat, lon, lat, …] each. */
  rings: make<number[][]>('list', 'DOUBLE[][]'),
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
export const derived = <T>(c: Column<T>, derivation: Derivation): Column<T | null> & DerivedColumn =>
  ({ ...c, nullable: true, derive: derivation }) as Column<T | null> & DerivedColumn;

/** The same column, its numbers codes that name things (a term's code), not amounts: see Column.meaning. */
export const code = <T>(c: Column<T>): Column<T> => ({ ...c, meaning: 'code' });

/** The same column, its texts JSON or geometry: see Column.meaning. */
export const structuredText = <T>(c: Column<T>): Column<T> => ({ ...c, meaning: 'structured-text' });
