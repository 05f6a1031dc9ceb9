import type { Column, Columns, PulledColumn, TableSpec } from '../../core/table.ts';
import { column, nullable } from './column.ts';

/** Every table keeps what an upstream sends beyond the declared fields, so nothing is dropped. */
export const extraColumn = nullable(
  column.json({
    en: 'Fields the upstream sent that the v1 spec does not name, as a JSON merge patch over the rendered resource; null when there were none.',
    pl: 'Pola przesłane przez źródło, których specyfikacja v1 nie wymienia, jako łatka JSON Merge Patch na wyrenderowany zasób; null, gdy ich nie było.',
  }),
);

/**
 * Where a record stood in the upstream's own list, as a pull saw it: a table whose records an
 * endpoint lists declares it first in its `sortBy`, so the list is served in the upstream's order.
 */
export const listPosition: Column<number | null> & PulledColumn = {
  ...nullable(
    column.integer({
      en: "Where the record stood in the upstream's list when it was pulled (0 first); the list is served in this order. Null where it was not pulled (the sample city), and the rest of the table's order holds.",
      pl: 'Miejsce rekordu na liście źródła w chwili pobrania (0 to pierwszy); lista jest udostępniana w tej kolejności. Null, gdy rekordu nie pobrano (przykładowe miasto): obowiązuje wtedy dalsza kolejność tabeli.',
    }),
  ),
  pulled: true,
};

/** Declares a Parquet table. Its name comes from its key in the data set's `tables`. */
export const defineTable = <C extends Columns>(spec: TableSpec<C>): TableSpec<C> => spec;
