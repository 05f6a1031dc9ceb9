import { z } from 'zod';

/**
 * A table's column statistics, as the build publishes them at columnStatisticsPath (see
 * published-tree.ts) and the site's table pages read them. Values (min, max, bin edges, top
 * values) are texts, as the table's CSV download writes them: decimals exact, days
 * `YYYY-MM-DD`, instants `2024-05-01T06:00:00.000Z`; counts are numbers. Extend only compatibly:
 * readers of format 1 rely on every field below.
 */

export const COLUMN_STATISTICS_FORMAT = 1;

const count = z.number().int().nonnegative();

/** A bin of equal width: the non-null values `from` ≤ value < `to`. */
const bin = z.object({ from: z.string(), to: z.string(), count });

const columnStatistics = z.object({
  name: z.string(),
  /** The DuckDB type, as the catalogue gives it, e.g. DECIMAL(15,2). */
  type: z.string(),
  nulls: count,
  /** Distinct non-null values: exact for columns with top values and in tables of up to a million rows, else a HyperLogLog estimate. */
  distinct: count,
  distinctIsApproximate: z.boolean(),
  /** Least and greatest value, null when there is none; absent for JSON, lists and structured text. */
  min: z.string().nullable().optional(),
  max: z.string().nullable().optional(),
  /**
   * Numbers, days and instants: bins of one width, a round figure of the column's unit (2, 5, 10…;
   * hours, days, weeks), about 20 from the least value's bin to the greatest's, fewer when the
   * column has fewer distinct values; empty bins included, so every non-null value is counted once.
   */
  histogram: z.array(bin).optional(),
  /** Texts, codes and booleans: the 10 commonest values, most common first, ties by value. */
  top: z.array(z.object({ value: z.string(), count })).optional(),
});

export const tableStatisticsSchema = z.object({
  format: z.literal(COLUMN_STATISTICS_FORMAT),
  snapshot: z.string(),
  dataset: z.string(),
  table: z.string(),
  /** The table's name in SQL (odsnap sql, the site's query page), e.g. rcn_transactions. */
  sqlName: z.string(),
  rows: count,
  columns: z.array(columnStatistics),
});

export type ColumnStatistics = z.infer<typeof columnStatistics>;
export type TableStatistics = z.infer<typeof tableStatisticsSchema>;
