import { addDays } from '../../../core/calendar.ts';
import type { FileUnit, TreeLayout } from '../static-files.ts';

/** One UTC month of a series. */
export type MonthUnit = FileUnit & { readonly kind: 'month'; readonly month: string };

export function nextMonth(month: string): string {
  const [year, number] = month.split('-').map(Number) as [number, number];
  return number === 12 ? `${year + 1}-01` : `${year}-${String(number + 1).padStart(2, '0')}`;
}

export const lastDayOf = (month: string) => addDays(`${nextMonth(month)}-01`, -1);

/**
 *   /api/public/bike-counter/counters/{id}/readings/2024-05.json   …/readings?from=2024-05-01&to=2024-05-31
 */
export const monthLayout: TreeLayout<MonthUnit> = {
  segments: (unit) => [unit.month],
  unitOf: ([month]) => ({ kind: 'month', month: month! }),
  query: (unit) => ({ from: `${unit.month}-01`, to: lastDayOf(unit.month) }),
  unitFor(query) {
    const { from, to, ...others } = query;
    const month = from?.slice(0, 7);
    if (Object.keys(others).length || !month || from !== `${month}-01` || to !== lastDayOf(month)) return undefined;
    return { kind: 'month', month };
  },
  pattern: { file: '/{month}', query: '?from={month}-01&to={last day of month}' },
  about: 'readings and history are by UTC month at /{month}.json',
};
