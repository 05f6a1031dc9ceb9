import { addDays } from '../../core/calendar.ts';
import { inRowOrder } from '../../core/row-order.ts';
import { zonedDayOf } from '../../core/zoned-time.ts';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import { city } from '../../datasets/vocabulary/sample-city.ts';
import { sampleContext, type RowSinks, type SampleContext, type SampleSettings } from '../../datasets/vocabulary/sample.ts';

/**
 * The sample city's live tables at any minute, from each data set's `liveSample`: what a city
 * whose time moves shows, and what a mirror that captured it every minute should hold.
 */

/** What fixes a sample city whatever its day: the live rows of a minute depend on these and the minute alone. */
export type SampleCity = Pick<SampleSettings, 'scale' | 'seed'>;

/** A data set's live rows at one minute, by table, each in the table's order and with every column (null where the sample writes none). */
export type LiveTables = Readonly<Record<string, readonly Record<string, unknown>[]>>;

/** Live tables by data set name. */
export type LiveRows = Readonly<Record<string, LiveTables>>;

const MINUTE = 60_000;

/** The minute an instant falls in (its start): the city's offsets are whole hours, so the UTC minute is the local one. */
export const minuteOf = (at: number) => Math.floor(at / MINUTE) * MINUTE;

/** The sample's context whose "now" is the midnight the day of `at` began, in the city's time zone: the day the live map lives from. */
export function dayContextAt(sample: SampleCity, at: number): SampleContext {
  return sampleContext({ ...sample, until: addDays(zonedDayOf(at, city.timeZone), -1) });
}

/** The rows of every data set's live tables (and what its live answers read besides) at the minute of `at`, captured at that minute. */
export function liveRowsAt(datasets: readonly Dataset[], sample: SampleCity, at: number): LiveRows {
  const minute = minuteOf(at);
  const context = dayContextAt(sample, minute);
  const rows: Record<string, LiveTables> = {};
  for (const dataset of datasets) {
    if (!dataset.liveSample) continue;
    const written: Record<string, Record<string, unknown>[]> = {};
    const sinks = Object.fromEntries(
      Object.keys(dataset.tables).map((name) => [name, { write: (row: Record<string, unknown>) => (written[name] ??= []).push(row) }]),
    ) as RowSinks<typeof dataset.tables>;
    dataset.liveSample(context, minute, sinks);
    rows[dataset.name] = Object.fromEntries(
      Object.entries(written).map(([name, tableRows]) => {
        const table = dataset.tables[name]!;
        // As a snapshot's reader gives them: every column, null where nothing was written (the list position, extra).
        const blank = Object.fromEntries(Object.keys(table.columns).map((column) => [column, null]));
        return [
          name,
          inRowOrder(
            table,
            tableRows.map((row) => ({ ...blank, ...row })),
          ),
        ];
      }),
    );
  }
  return rows;
}
