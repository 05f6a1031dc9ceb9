import { addDays, utcDayOf } from '../../core/calendar.ts';
import type { Table } from '../../core/table.ts';
import { offsetFormOf, type OffsetForm } from '../../core/zoned-time.ts';
import type { Crawl, RangeFacts } from './crawling.ts';

/**
 * Asking the upstream what the spec leaves open about a from..to range of days, once a pull has
 * its windows: a row that spans midnight (a ride) is looked for in a one-day window of the day it
 * ends (returned: rows are not chosen by their start) and of the day it starts (returned: not by
 * their end); a row at midnight (an hourly reading) in a one-day window of the day before
 * (returned: `to` includes the next midnight). And how it writes offsets in a time zone asked: a
 * window with rows is asked again in two zones (see ZONES). What the answers show is the unit's
 * observation; a pull without such a row cannot ask, and says so (see scripts/pull/range-rules.ts).
 */

const DAY = 86_400_000;
/** Windows whose rows are looked through for a row to ask about. */
const LOOKED_THROUGH = 200;
/** …and where a row that spans midnight is found, enough of them to look for a row at midnight too. */
const ENOUGH = 20;

export interface RangeProbe {
  readonly endpoint: string;
  readonly table: Table;
  readonly time: string;
  readonly until?: string;
  /** The window units fetched, with their parameters (`from`, `to` and the parents'). */
  readonly windows: readonly { readonly key: string; readonly params: Readonly<Record<string, string>> }[];
  /** The rows of a window asked now, with these parameters. */
  ask(params: Readonly<Record<string, string>>): Promise<Record<string, unknown>[]>;
  /** The text of a window's (first) answer asked now in a time zone. */
  askText(params: Readonly<Record<string, string>>, timeZone: string): Promise<string>;
}

/** A row's identity, as a pull compares rows (the key, else every column the upstream sent). */
export function rowIdentity(table: Table, row: Readonly<Record<string, unknown>>): string {
  const columns = table.key ?? Object.keys(table.columns).filter((column) => !ADDED_BY_PULL.has(column));
  return JSON.stringify([table.name, columns.map((column) => row[column] ?? null)]);
}

/** Columns a pull adds to what the upstream sent. */
const ADDED_BY_PULL = new Set(['extra', 'upstream_json', 'list_position']);

export async function probeRange(crawl: Crawl, probe: RangeProbe): Promise<void> {
  try {
    await asked(crawl, probe);
  } catch (error) {
    // Not knowing the rule is said in the summary; it fails no pull.
    crawl.log('range not asked', { dataset: crawl.dataset.name, endpoint: probe.endpoint, error: (error as Error).message });
  }
  try {
    await zoneAsked(crawl, probe);
  } catch (error) {
    crawl.log('zone not asked', { dataset: crawl.dataset.name, endpoint: probe.endpoint, error: (error as Error).message });
  }
}

/**
 * Zones a window is asked in, to see how the upstream writes offsets in a zone (the spec: "ISO
 * 8601 timestamp with offset"): one whose offset is never zero, one whose offset is always zero.
 */
const ZONES = { nonZero: 'Asia/Tokyo', zero: 'Atlantic/Reykjavik' } as const;

const INSTANT_LITERAL = /"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(Z|[+-]\d{2}(?::?\d{2})?)"/g;

/** The one form of the offsets an answer wrote, if every instant in it agrees. */
function offsetFormIn(text: string): OffsetForm | undefined {
  const forms = new Set([...text.matchAll(INSTANT_LITERAL)].map((match) => offsetFormOf(match[1]!)));
  return forms.size === 1 ? [...forms][0] : undefined;
}

async function zoneAsked(crawl: Crawl, probe: RangeProbe): Promise<void> {
  const window = probe.windows.slice(0, LOOKED_THROUGH).find(({ key }) => crawl.rowsOf(key).length > 0);
  if (!window) return;
  await crawl.unit(`PROBE ${probe.endpoint} zone`, async () => {
    const nonZero = offsetFormIn(await probe.askText(window.params, ZONES.nonZero));
    const zero = offsetFormIn(await probe.askText(window.params, ZONES.zero));
    const zoneOffsets = { ...(nonZero && nonZero !== 'Z' ? { nonZero } : {}), ...(zero ? { zero } : {}) };
    crawl.log('zone asked', { dataset: crawl.dataset.name, endpoint: probe.endpoint, ...zoneOffsets });
    return { meta: { observed: { endpoint: probe.endpoint, zoneOffsets } } };
  });
}

async function asked(crawl: Crawl, probe: RangeProbe): Promise<void> {
  await crawl.unit(`PROBE ${probe.endpoint} range`, async () => {
    let spanning: { row: Record<string, unknown>; parents: Record<string, string> } | undefined;
    let midnight: typeof spanning;
    let looked = 0;
    for (const { key, params } of probe.windows.slice(0, LOOKED_THROUGH)) {
      looked++;
      const { from, to: _, ...parents } = params;
      for (const row of crawl.rowsOf(key)) {
        const time = row[probe.time] as number;
        const until = probe.until === undefined ? undefined : (row[probe.until] as number | null);
        if (!spanning && typeof until === 'number' && utcDayOf(until) > utcDayOf(time) && until % DAY !== 0) spanning = { row, parents };
        if (!midnight && time % DAY === 0 && utcDayOf(time) > from!) midnight = { row, parents };
      }
      // Rides rarely start on the stroke of midnight: not looked for through every window.
      if ((midnight || looked >= ENOUGH) && (spanning || probe.until === undefined)) break;
    }
    const has = async (found: { row: Record<string, unknown>; parents: Record<string, string> }, day: string) =>
      (await probe.ask({ ...found.parents, from: day, to: day })).some((row) => rowIdentity(probe.table, row) === rowIdentity(probe.table, found.row));
    const range: { -readonly [K in keyof RangeFacts]: RangeFacts[K] } = {};
    if (spanning) {
      range.startsBefore = await has(spanning, utcDayOf(spanning.row[probe.until!] as number));
      range.endsAfter = await has(spanning, utcDayOf(spanning.row[probe.time] as number));
    }
    if (midnight) range.toInclusive = await has(midnight, addDays(utcDayOf(midnight.row[probe.time] as number), -1));
    crawl.log('range asked', { dataset: crawl.dataset.name, endpoint: probe.endpoint, ...range });
    return { meta: { observed: { endpoint: probe.endpoint, range } } };
  });
}
