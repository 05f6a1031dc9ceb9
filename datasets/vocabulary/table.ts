import type { Column, Columns, PulledColumn, TableSpec } from '../../core/table.ts';
import { column, nullable, structuredText } from './column.ts';

/** Every table keeps what an upstream sends beyond the declared fields, so nothing is dropped. */
export const extraColumn = nullable(
  column.json({
    en: 'Fields the upstream sent that the v1 spec does not name, as a JSON merge patch over the rendered resource; null when there were none.',
    pl: 'Pola przesłane przez źródło, których specyfikacja v1 nie wymienia, jako łatka JSON Merge Patch na wyrenderowany zasób; null, gdy ich nie było.',
  }),
);

/** Every table keeps each record as its upstream wrote it, where rendering its row would write it otherwise. */
export const upstreamJsonColumn = nullable(
  structuredText(
    column.varchar({
      en: "The record as the upstream wrote it (JSON text: key order, numbers and strings as sent, links relative to {base_url}), served back as it is; null where the record's row renders it byte for byte, or no upstream sent it (the sample city).",
      pl: 'Rekord w postaci zapisanej przez źródło (tekst JSON: kolejność kluczy, liczby i napisy jak przesłano, linki względne wobec {base_url}), udostępniany bez zmian; null, gdy wiersz rekordu renderuje go bajt w bajt albo gdy żadne źródło go nie przesłało (przykładowe miasto).',
    }),
  ),
);

/** The columns every table has beside its declared ones. */
export const recordColumns = { extra: extraColumn, upstream_json: upstreamJsonColumn };

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
