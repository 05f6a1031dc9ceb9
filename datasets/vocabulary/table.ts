import type { Columns, TableSpec } from '../../core/table.ts';
import { column, nullable } from './column.ts';

/** Every table keeps what an upstream sends beyond the declared fields, so nothing is dropped. */
export const extraColumn = nullable(
  column.json({
    en: 'Fields the upstream sent that the v1 spec does not name, as a JSON merge patch over the rendered resource; null when there were none.',
    pl: 'Pola przesłane przez źródło, których specyfikacja v1 nie wymienia, jako łatka JSON Merge Patch na wyrenderowany zasób; null, gdy ich nie było.',
  }),
);

/** Declares a Parquet table. Its name comes from its key in the data set's `tables`. */
export const defineTable = <C extends Columns>(spec: TableSpec<C>): TableSpec<C> => spec;
