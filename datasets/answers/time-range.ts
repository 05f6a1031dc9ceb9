import type { DuckDBValue } from '@duckdb/node-api';
import { addDays } from '../../core/calendar.ts';
import { quoteIdentifier } from '../../core/db/duckdb.ts';
import type { Narrowing } from '../../core/snapshot/read.ts';
import type { RangeRule } from '../../core/snapshot/manifest.ts';
import { zonedDayStart } from '../../core/zoned-time.ts';
import type { AnswerRequest } from './serving.ts';

/**
 * What answers over a `from`..`to` range of days share (numbered pages, series): which rows the
 * range returns, by the rule the upstream was seen to follow (the snapshot's `range` of the
 * endpoint, see RangeRule), else as the sample city does: rows that start from the first
 * instant of `from` up to, not including, the first instant after `to`.
 */
export interface DayRange {
  /** The first instant of `from` and the first instant after `to`, in the request's time zone. */
  readonly from: number;
  readonly to: number;
  readonly rule: RangeRule;
}

export function dayRangeOf(request: AnswerRequest): DayRange {
  const timeZone = request.params.timezone as string;
  return {
    from: zonedDayStart(request.params.from as string, timeZone),
    to: zonedDayStart(addDays(request.params.to as string, 1), timeZone),
    rule: request.served.snapshot.manifest.endpoints?.[request.endpoint.fullPath]?.range ?? {},
  };
}

/** The files a range's rows can be in, by the min/max of the time column. */
export function rangeNarrowing({ from, to, rule }: DayRange): Pick<Narrowing, 'from' | 'to'> {
  // Chosen by their end or by overlap, rows may start long before `from`.
  const start = (rule.by ?? 'start') === 'start' ? { from } : {};
  return { ...start, to: rule.toInclusive ? to + 1 : to };
}

const at = (ms: number, bind: (v: DuckDBValue) => string) => `make_timestamptz(CAST(${bind(BigInt(ms) * 1000n)} AS BIGINT))`;

/** The range as SQL on a row's `time` column (and `until`, its end, where rows span time), binding epoch microseconds. */
export function rangeCondition(columns: { readonly time: string; readonly until?: string }, range: DayRange, bind: (v: DuckDBValue) => string): string {
  const start = quoteIdentifier(columns.time);
  const end = columns.until === undefined ? start : quoteIdentifier(columns.until);
  const before = range.rule.toInclusive ? '<=' : '<';
  const [from, to] = [at(range.from, bind), at(range.to, bind)];
  switch (range.rule.by ?? 'start') {
    case 'start':
      return `${start} >= ${from} AND ${start} ${before} ${to}`;
    case 'end':
      return `${end} >= ${from} AND ${end} ${before} ${to}`;
    case 'overlap':
      return `${start} ${before} ${to} AND ${end} >= ${from}`;
  }
}
