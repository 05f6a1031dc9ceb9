import { addDays, dayToUtcMs, utcDayOf } from '../../../core/calendar.ts';
import { enveloped } from '../serving.ts';
import { EMPTY, pathIn, type FileSource, type StaticFile } from '../static-files.ts';
import type { NumberedPageAnswer } from './index.ts';
import { dayLayout } from './layout.ts';
import { MAX_PAGE_SIZE, numberedPage } from './numbered-page.ts';

/**
 * Every UTC day from the first row's to the last row's, in pages of 500 (an empty day: one empty
 * page). Days whose rows are unchanged are carried; rows are read from the first changed day on.
 */
export async function* numberedPageFiles(source: FileSource, answer: NumberedPageAnswer): AsyncGenerator<StaticFile> {
  const { dataset, rows, context } = source;
  const resource = rows.resource(dataset, answer.resource);
  const groups = await source.prints.groupPrints(dataset, answer.resource, [], answer.time, 'day');
  if (!groups.length) return;
  const byDay = new Map(groups.map((group) => [group.unit, group]));
  const days: { day: string; pages: number; print: string }[] = [];
  for (let day = groups[0]!.unit; day <= groups.at(-1)!.unit; day = addDays(day, 1)) {
    const group = byDay.get(day);
    days.push({ day, pages: Math.max(1, Math.ceil((group?.rows ?? 0) / MAX_PAGE_SIZE)), print: group?.print ?? EMPTY });
  }
  const pathOf = (day: string, page: number) => pathIn(source, dayLayout, {}, { kind: 'day', day, page });
  const pathsOf = (day: (typeof days)[number]) => Array.from({ length: day.pages }, (_, i) => pathOf(day.day, i + 1));
  const isChanged = (day: (typeof days)[number]) => pathsOf(day).some((path, i) => source.previousInput(path) !== `${day.print}:${i + 1}`);
  const firstChanged = days.findIndex(isChanged);
  const carry = function* (day: (typeof days)[number]) {
    yield { carried: pathsOf(day).map((path, i) => ({ path, input: `${day.print}:${i + 1}` })) };
  };
  for (const day of days.slice(0, firstChanged < 0 ? days.length : firstChanged)) yield* carry(day);
  if (firstChanged < 0) return;

  const pending = days.slice(firstChanged);
  let current = 0;
  let data: unknown[] = [];
  let page = 1;
  const emit = (hasNextPage: boolean) => {
    const day = pending[current]!;
    return { path: pathOf(day.day, page), body: enveloped(numberedPage(data, page, MAX_PAGE_SIZE, hasNextPage), source.envelope), input: `${day.print}:${page}` };
  };
  /** Finishes days before `day`: the current one's last page, and empty days. */
  const finishUntil = function* (day: string | undefined) {
    while (current < pending.length && (day === undefined || pending[current]!.day < day)) {
      const entry = pending[current]!;
      if (changedDay.has(entry.day)) yield emit(false);
      else yield* carry(entry);
      current++;
      data = [];
      page = 1;
    }
  };
  const changedDay = new Set(pending.filter(isChanged).map((day) => day.day));
  for await (const batch of rows.stream(dataset, answer.resource, { from: dayToUtcMs(pending[0]!.day) })) {
    for (const row of batch) {
      const rowDay = utcDayOf(row[answer.time] as number);
      yield* finishUntil(rowDay);
      if (!changedDay.has(rowDay)) continue;
      if (data.length === MAX_PAGE_SIZE) {
        yield emit(true);
        page++;
        data = [];
      }
      data.push(resource.render(row, context));
    }
  }
  yield* finishUntil(undefined);
}
