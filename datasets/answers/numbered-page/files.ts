import { addDays } from '../../../core/calendar.ts';
import { enveloped } from '../serving.ts';
import { EMPTY, pathIn, type FileSource, type StaticFile } from '../static-files.ts';
import { rangeUnits } from '../time-range.ts';
import type { NumberedPageAnswer } from './declaration.ts';
import { dayLayout } from './layout.ts';
import { MAX_PAGE_SIZE, numberedPage } from './numbered-page.ts';

/**
 * Every UTC day from the first row's to the last row's, in pages of 500 (an empty day: one empty
 * page), each holding the rows the day's range returns by the snapshot's rule: by their start
 * alone, or a ride across midnight in both days' files, by overlap. Days whose rows are
 * unchanged are carried; rows are read from the first changed day's first row on.
 */
export async function* numberedPageFiles(source: FileSource, answer: NumberedPageAnswer): AsyncGenerator<StaticFile> {
  const { dataset, rows, context } = source;
  const resource = rows.resource(dataset, answer.resource);
  const rule = source.range ?? {};
  const groups = await source.prints.groupPrints(dataset, answer.resource, [], answer.time, 'day', { rule, ...(answer.until ? { until: answer.until } : {}) });
  if (!groups.length) return;
  const byDay = new Map(groups.map((group) => [group.unit, group]));
  type Day = { day: string; rows: number; pages: number; print: string; first?: number; last?: number };
  const days: Day[] = [];
  for (let day = groups[0]!.unit; day <= groups.at(-1)!.unit; day = addDays(day, 1)) {
    const group = byDay.get(day);
    days.push({
      day,
      rows: group?.rows ?? 0,
      pages: Math.max(1, Math.ceil((group?.rows ?? 0) / MAX_PAGE_SIZE)),
      print: group?.print ?? EMPTY,
      first: group?.first,
      last: group?.last,
    });
  }
  const pathOf = (day: string, page: number) => pathIn(source, dayLayout, {}, { kind: 'day', day, page });
  const pathsOf = (day: Day) => Array.from({ length: day.pages }, (_, i) => pathOf(day.day, i + 1));
  const isChanged = (day: Day) => pathsOf(day).some((path, i) => source.previousInput(path) !== `${day.print}:${i + 1}`);
  const firstChanged = days.findIndex(isChanged);
  const carry = function* (day: Day) {
    yield { type: 'carried' as const, files: pathsOf(day).map((path, i) => ({ path, input: `${day.print}:${i + 1}` })) };
  };
  for (const day of days.slice(0, firstChanged < 0 ? days.length : firstChanged)) yield* carry(day);
  if (firstChanged < 0) return;

  // The rows of each changed day, rendered, in row order: a day's pages are written in order once
  // the days before it are, so the rows of the days after the current one wait (by overlap or by
  // their end, rides across its last midnight).
  const pending = days.slice(firstChanged);
  const held = new Map(pending.filter(isChanged).map((day) => [day.day, { data: [] as unknown[], page: 1 }]));
  let current = 0;
  const emit = (day: Day, hasNextPage: boolean) => {
    const holding = held.get(day.day)!;
    const page = holding.page++;
    const data = holding.data.splice(0, MAX_PAGE_SIZE);
    const body = enveloped(numberedPage(data, page, MAX_PAGE_SIZE, hasNextPage), source.envelope, {
      total: day.rows,
      count: data.length,
      page,
      pageSize: MAX_PAGE_SIZE,
    });
    return { type: 'rendered' as const, path: pathOf(day.day, page), body, input: `${day.print}:${page}` };
  };
  /** The current day's full pages with more rows after them. */
  const fullPages = function* () {
    const day = pending[current];
    while (day && (held.get(day.day)?.data.length ?? 0) > MAX_PAGE_SIZE) yield emit(day, true);
  };
  /** Finishes days while their last row is before `time` (all, without one): the current one's last page, and carried days. */
  const finishBefore = function* (time?: number) {
    while (current < pending.length && (time === undefined || pending[current]!.last === undefined || pending[current]!.last! < time)) {
      const day = pending[current]!;
      if (held.has(day.day)) {
        yield* fullPages();
        yield emit(day, false);
        held.delete(day.day);
      } else yield* carry(day);
      current++;
      yield* fullPages();
    }
  };
  const unitsOf = rangeUnits(rule, 'day');
  // Rows are in time order: those of the changed days start at the first of them.
  const from = Math.min(...pending.filter((day) => held.has(day.day) && day.first !== undefined).map((day) => day.first!));
  if (from < Infinity) {
    for await (const batch of rows.stream(dataset, answer.resource, { from })) {
      for (const row of batch) {
        const time = row[answer.time] as number;
        yield* finishBefore(time);
        let rendered: unknown;
        for (const day of answer.until === undefined ? unitsOf(time) : unitsOf(time, row[answer.until] as number | null)) {
          const holding = held.get(day);
          if (!holding) continue;
          holding.data.push((rendered ??= resource.render(row, context)));
        }
        yield* fullPages();
      }
    }
  }
  yield* finishBefore(undefined);
}
