import { addDays, dayToUtcMs, utcDayOf } from '../../../core/calendar.ts';
import type { Endpoint } from '../../vocabulary/endpoint.ts';
import {
  envelopesOf,
  forwardWindows,
  isObject,
  OVERLAP_DAYS,
  readColumnProblems,
  seriesKey,
  storedProblems,
  type Crawl,
  type Span,
  type StepScope,
} from '../crawling.ts';
import type { SeriesAnswer } from './declaration.ts';
import { probeRange } from '../range-probe.ts';

/**
 * A series (its records in `field`) for every combination of its parents, in from/to windows of
 * `days` days: across the first parent's `span`, or without one backwards from today until two
 * windows in a row come back empty. `where` keeps the parents (by parameter) whose columns hold
 * the given values.
 */
export interface SeriesStep {
  readonly path: string;
  readonly field: string;
  readonly days: number;
  readonly span?: Span;
  readonly where?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

export const seriesProblems = (step: SeriesStep, _endpoint: Endpoint, answer: SeriesAnswer, scope: StepScope): string[] => [
  ...storedProblems(scope, answer.resource),
  ...(step.span ? [step.span.from, step.span.to].flatMap((column) => readColumnProblems(scope, answer.parents[0]!.resource, column)) : []),
];

/**
 * From shortly before where the previous pull left off, else across the first parent's span,
 * else backwards from today until two windows in a row are empty.
 */
export async function crawlSeries(crawl: Crawl, step: SeriesStep, endpoint: Endpoint, answer: SeriesAnswer): Promise<void> {
  const { parents, resource, time } = answer;
  const table = crawl.table(resource);
  const columns = parents.map((p) => p.column);
  const marks = await crawl.watermarks(table.name, columns, time);
  const lists = parents.map((parent) =>
    crawl.parentsOf(parent.resource).filter((row) => Object.entries(step.where?.[parent.param] ?? {}).every(([column, value]) => row[column] === value)),
  );
  const combinations = lists.reduce<Record<string, unknown>[][]>((acc, rows) => acc.flatMap((combo) => rows.map((row) => [...combo, row])), [[]]);
  const cutoffs = new Map<string, number>();
  const jobs = combinations.map((combo) => {
    const values = combo.map((row, i) => String(row[parents[i]!.key]));
    const latest = marks.get(seriesKey(values));
    const span = step.span ? crawl.span(combo[0]!, step.span) : undefined;
    let windows: [string, string][] | undefined;
    if (latest !== undefined) {
      const start = addDays(utcDayOf(latest), -OVERLAP_DAYS);
      windows = forwardWindows(span && span[0] > start ? span[0] : start, span?.[1] ?? crawl.today, step.days);
      // Previous rows from the first window asked on are replaced by what it brings.
      if (windows.length) cutoffs.set(seriesKey(values), dayToUtcMs(windows[0]![0]));
    } else if (span) {
      windows = forwardWindows(span[0], span[1], step.days);
    }
    return { values, windows };
  });
  crawl.plan(table.name, crawl.appendOrReplace(columns, time, cutoffs));
  crawl.planned(jobs.length);
  const place = { resource, field: step.field, window: { endpoint: endpoint.fullPath, time } };
  const shape = (body: unknown) => (isObject(body) && Array.isArray(body[step.field]) ? undefined : `no array "${step.field}"`);
  const pathOf = (params: Readonly<Record<string, string>>) =>
    parents.reduce((p, parent) => p.replace(`{${parent.param}}`, encodeURIComponent(params[parent.param]!)), endpoint.fullPath);
  const fetched: { key: string; params: Record<string, string> }[] = [];
  await crawl.each(jobs, async (job) => {
    const params = Object.fromEntries(parents.map((p, i) => [p.param, job.values[i]!]));
    const path = pathOf(params);
    const window = async ([from, to]: [string, string]) => {
      const key = `GET ${path}?from=${from}&to=${to}`;
      const meta = await crawl.unit<{ records: number }>(key, async () => {
        const got = await crawl.get(path, { from, to }, { shape });
        const records = (got.body as Record<string, unknown[]>)[step.field]!.length;
        const observed = { endpoint: endpoint.fullPath, envelopes: envelopesOf(got, endpoint, { count: records }) };
        return crawl.found(got, step.path, { ...params, from, to }, [place], { records, observed });
      });
      if (meta.records) fetched.push({ key, params: { ...params, from, to } });
      return meta;
    };
    if (job.windows) {
      crawl.planned(job.windows.length);
      for (const w of job.windows) await window(w);
    } else {
      // No span to go by: walk back until two windows in a row hold nothing.
      for (let to = crawl.today, empty = 0; empty < 2; to = addDays(to, -step.days)) {
        crawl.planned(1);
        const meta = await window([addDays(to, 1 - step.days), to]);
        empty = meta.records === 0 ? empty + 1 : 0;
      }
    }
    crawl.done();
  });
  // What the spec leaves open about the range, asked once the windows are in.
  await probeRange(crawl, {
    endpoint: endpoint.fullPath,
    table,
    time,
    windows: fetched,
    ask: async (params) => {
      const { from, to } = params;
      return crawl.rowsIn([await crawl.get(pathOf(params), { from: from!, to: to! }, { shape })], step.path, params, place);
    },
    askText: async (params, timezone) => (await crawl.get(pathOf(params), { from: params.from!, to: params.to!, timezone }, { shape })).text ?? '',
  });
}
