import type { FileUnit, TreeLayout } from '../static-files.ts';
import { MAX_PAGE_SIZE } from './numbered-page.ts';

/** A page of one UTC day's rows, in pages of the most a page holds. */
export type DayUnit = FileUnit & { readonly kind: 'day'; readonly day: string; readonly page: number };

/**
 *   /api/public/citybike/rides/2024-05-01/2.json   …/rides?from=2024-05-01&to=2024-05-01&page=2&pageSize=500
 */
export const dayLayout: TreeLayout<DayUnit> = {
  segments: (unit) => [unit.day, String(unit.page)],
  unitOf: ([day, page]) => ({ kind: 'day', day: day!, page: Number(page) }),
  query: (unit) => ({ from: unit.day, to: unit.day, page: String(unit.page), pageSize: String(MAX_PAGE_SIZE) }),
  unitFor(query) {
    const { from, to, page = '1', pageSize, ...others } = query;
    if (Object.keys(others).length || !from || from !== to || pageSize !== String(MAX_PAGE_SIZE) || !/^[1-9]\d*$/.test(page)) return undefined;
    return { kind: 'day', day: from, page: Number(page) };
  },
  pattern: { file: '/{day}/{page}', query: `?from={day}&to={day}&page={page}&pageSize=${MAX_PAGE_SIZE}` },
  about: `rides are by UTC day in pages of ${MAX_PAGE_SIZE} at /{day}/{page}.json`,
};
