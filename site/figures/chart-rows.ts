import type { ChartData } from '../../datasets/vocabulary/figure.ts';

/** A chart's rows as its layout reads them: grouped by panel, series or x value, and the data's step. */

export type Row = ChartData['rows'][number];

export function groupBy<T, K>(items: readonly T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

export const unique = (values: readonly string[]) => [...new Set(values)];
export const uniqueBy = <T>(items: readonly T[], keyOf: (item: T) => string) => [...new Map(items.map((item) => [keyOf(item), item])).values()];

/** The smallest distance between consecutive x values of a series: the data's step (a day, a week, a month). */
export function smallestStep(rows: readonly Row[], xValue: (row: Row) => number): number {
  let step = Infinity;
  for (const [, members] of groupBy(rows, (row) => `${row.panel ?? ''}\n${row.series ?? ''}`)) {
    const xs = members.map(xValue).sort((a, b) => a - b);
    for (let i = 1; i < xs.length; i++) if (xs[i]! > xs[i - 1]!) step = Math.min(step, xs[i]! - xs[i - 1]!);
  }
  return step;
}
