import type { DuckDBValue } from '@duckdb/node-api';
import { addDays, dayToUtcMs, utcDayOf } from '../../core/calendar.ts';
import { quoteIdentifier } from '../../core/db/duckdb.ts';
import type { Narrowing } from '../../core/snapshot/read.ts';
import type { Manifest, RangeRule } from '../../core/snapshot/manifest.ts';
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

/** The rule a snapshot records for an endpoint (by its full path); none: the sample city's. */
export const rangeRuleOf = (manifest: Manifest, endpoint: string): RangeRule => manifest.endpoints?.[endpoint]?.range ?? {};

export function dayRangeOf(request: AnswerRequest): DayRange {
  const timeZone = request.params.timezone as string;
  return {
    from: zonedDayStart(request.params.from as string, timeZone),
    to: zonedDayStart(addDays(request.params.to as string, 1), timeZone),
    rule: rangeRuleOf(request.served.snapshot.manifest, request.endpoint.fullPath),
  };
}

/**
 * The range as a span of a row's time in epoch microseconds, for rows kept rendered by their
 * start (see RenderedSeries): the rule's `to` included or not.
 */
export const startSpan = ({ from, to, rule }: DayRange) => ({ from: from * 1000, to: to * 1000, toIncluded: rule.toInclusive === true });

/** The files a range's rows can be in, by the min/max of the time column. */
export function rangeNarrowing({ from, to, rule }: DayRange): Pick<Narrowing, 'from' | 'to'> {
  // Chosen by their end or by overlap, rows may start long before `from`.
  const start = (rule.by ?? 'start') === 'start' ? { from } : {};
  return { ...start, to: rule.toInclusive ? to + 1 : to };
}

type Bound = 'from' | 'to';
type Comparison = readonly [side: 'start' | 'end', op: '>=' | '<' | '<=', bound: Bound];

/**
 * The rule as comparisons of a row's start or end with the range's bounds, every one of which
 * holds for a row the range returns: the one definition the server's SQL (rangeCondition) and the
 * static tree (rangeUnits) apply.
 */
function comparisonsOf(rule: RangeRule): readonly Comparison[] {
  const before = rule.toInclusive ? '<=' : '<';
  switch (rule.by ?? 'start') {
    case 'start':
      return [
        ['start', '>=', 'from'],
        ['start', before, 'to'],
      ];
    case 'end':
      return [
        ['end', '>=', 'from'],
        ['end', before, 'to'],
      ];
    case 'overlap':
      return [
        ['start', before, 'to'],
        ['end', '>=', 'from'],
      ];
  }
}

const at = (ms: number, bind: (v: DuckDBValue) => string) => `make_timestamptz(CAST(${bind(BigInt(ms) * 1000n)} AS BIGINT))`;

/** A row's start and end as SQL: where rows do not span time, the end is the start. */
const sides = (columns: { readonly time: string; readonly until?: string }) => {
  const start = quoteIdentifier(columns.time);
  return { start, end: columns.until === undefined ? start : quoteIdentifier(columns.until) };
};

/** The rule as SQL on a row's columns, the range's bounds being SQL expressions (instants). */
function ruleCondition(columns: { readonly time: string; readonly until?: string }, rule: RangeRule, bounds: Readonly<Record<Bound, string>>): string {
  const row = sides(columns);
  return comparisonsOf(rule)
    .map(([side, op, bound]) => `${row[side]} ${op} ${bounds[bound]}`)
    .join(' AND ');
}

/** The range as SQL on a row's `time` column (and `until`, its end, where rows span time), binding epoch microseconds. */
export function rangeCondition(columns: { readonly time: string; readonly until?: string }, range: DayRange, bind: (v: DuckDBValue) => string): string {
  return ruleCondition(columns, range.rule, { from: at(range.from, bind), to: at(range.to, bind) });
}

/**
 * The static tree's files of ranges of days: one UTC day (rides) or one UTC month (a series),
 * each the range from its first instant to the next unit's.
 */
export type RangeUnit = 'day' | 'month';

/** Whether the rule returns a row in the unit of its time alone (the sample city's: by its start, up to the next unit's first instant), so rows can be grouped by it as they are. */
export const byTimeAlone = (rule: RangeRule): boolean => comparisonsOf(rule).every(([side, op]) => side === 'start' && op !== '<=');

const nextMonthStart = (ms: number) => {
  const date = new Date(ms);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
};

/** The unit holding an instant: its name (YYYY-MM-DD or YYYY-MM) and range. */
function unitAt(unit: RangeUnit, ms: number): { name: string; from: number; to: number } {
  const day = utcDayOf(ms);
  if (unit === 'day') {
    const from = dayToUtcMs(day);
    return { name: day, from, to: dayToUtcMs(addDays(day, 1)) };
  }
  const from = dayToUtcMs(`${day.slice(0, 7)}-01`);
  return { name: day.slice(0, 7), from, to: nextMonthStart(from) };
}

/**
 * The units whose range returns a row, by the rule, for rows given by their start and end (epoch
 * ms; a row that does not span time is given by its start alone): the files of the static tree a
 * row is in. The candidates are every unit from the one before its earlier instant's (whose `to`
 * may include that instant) to its later instant's; the rule picks among them.
 */
export function rangeUnits(rule: RangeRule, unit: RangeUnit): (start: number, end?: number | null) => string[] {
  const comparisons = comparisonsOf(rule);
  const holds = { '>=': (a: number, b: number) => a >= b, '<': (a: number, b: number) => a < b, '<=': (a: number, b: number) => a <= b };
  // Rows come in time order: the unit last found serves most of them.
  let last = unitAt(unit, 0);
  const find = (ms: number) => (ms >= last.from && ms < last.to ? last : (last = unitAt(unit, ms)));
  return (start, end = start) => {
    const row = { start, end };
    const [low, high] = end === null ? [start, start] : [Math.min(start, end), Math.max(start, end)];
    const units: string[] = [];
    for (let candidate = find(low - 1); ; candidate = find(candidate.to)) {
      const bounds = candidate;
      // A missing end holds no comparison, as SQL's NULL does not.
      const returned = comparisons.every(([side, op, bound]) => row[side] !== null && holds[op](row[side]!, bounds[bound]));
      if (returned) units.push(candidate.name);
      if (candidate.to > high) return units;
    }
  };
}

/**
 * rangeUnits as SQL: `candidates`, a list of the first instants of a row's candidate units, to be
 * unnested as `unitColumn`, and `condition`, which of them return the row.
 */
export function rangeUnitsSql(
  columns: { readonly time: string; readonly until?: string },
  rule: RangeRule,
  unit: RangeUnit,
  unitColumn: string,
): { candidates: string; condition: string } {
  const { start, end } = sides(columns);
  const ended = `coalesce(${end}, ${start})`;
  const step = `INTERVAL 1 ${unit.toUpperCase()}`;
  return {
    candidates: `generate_series(date_trunc('${unit}', least(${start}, ${ended}) - INTERVAL 1 MILLISECOND), date_trunc('${unit}', greatest(${start}, ${ended})), ${step})`,
    condition: ruleCondition(columns, rule, { from: unitColumn, to: `(${unitColumn} + ${step})` }),
  };
}
