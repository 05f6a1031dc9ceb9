import type { DuckDBValue } from '@duckdb/node-api';
import { addDays } from '../../core/calendar.ts';
import { quoteIdentifier } from '../../core/db/duckdb.ts';
import { zonedDayStart } from '../../core/zoned-time.ts';
import type { AnswerRequest } from './serving.ts';

/** What answers over a `from`..`to` range of days share (numbered pages, series). */

/** from..to, days read in the request's time zone, as [first instant, instant after the last day). */
export function dayRangeOf(request: AnswerRequest): [number, number] {
  const timeZone = request.params.timezone as string;
  return [zonedDayStart(request.params.from as string, timeZone), zonedDayStart(addDays(request.params.to as string, 1), timeZone)];
}

/** The time range as SQL on a column, binding epoch microseconds. */
export function timeCondition(column: string, [from, to]: [number, number], bind: (v: DuckDBValue) => string): string {
  const name = quoteIdentifier(column);
  return `${name} >= make_timestamptz(CAST(${bind(BigInt(from) * 1000n)} AS BIGINT)) AND ${name} < make_timestamptz(CAST(${bind(BigInt(to) * 1000n)} AS BIGINT))`;
}
