import { addDays, dayToUtcMs } from '../../core/calendar.ts';
import type { RangeRule } from '../../core/snapshot/manifest.ts';
import type { Table } from '../../core/table.ts';
import type { RangeFacts, RecordPlace } from '../../datasets/answers/crawling.ts';
import { rowIdentity } from '../../datasets/answers/range-probe.ts';

/**
 * What the spec leaves open about a from..to range of days, learned from the answers to a pull's
 * windows (each asked in UTC): whether a `to` day includes the reading at the next midnight, and
 * whether rows that span time (rides) are returned by their start, their end, or when they
 * overlap the range. And, whatever the rule, a row two windows both return (a ride across a
 * window's edge, the midnight reading both sides of one) is stored once.
 *
 * Evidence, per endpoint: a row at the instant after a window's last day says `to` includes the
 * next midnight; a row at a window's first instant, where the window before it in the same series
 * held rows but none at that instant, says it does not. A row that starts before its window says
 * rows are not chosen by their start; one that ends after its window, not by their end.
 */

type Window = NonNullable<RecordPlace['window']>;

interface Evidence {
  spans: boolean;
  /** What windows asked to tell showed (range-probe.ts): it settles what the rows leave open. */
  asked?: RangeFacts;
  /** `<series> <instant>` of rows at a window's next midnight, at a window's first instant, and the next midnights of windows that held rows. */
  readonly atEnd: Set<string>;
  readonly atStart: Set<string>;
  readonly ends: Set<string>;
  startsBefore: boolean;
  endsAfter: boolean;
}

export class RangeRules {
  private readonly evidence = new Map<string, Evidence>();
  /** Rows on or across a window's edge, by identity: only these can come in two windows. */
  private readonly edgeRows = new Set<string>();

  /**
   * Notes what a row of a window shows, and says whether to store it: not when another window
   * returned it already. `params` are the request's, `from` and `to` among them.
   */
  keep(window: Window, params: Readonly<Record<string, string>>, table: Table, row: Record<string, unknown>): boolean {
    const { from, to, ...rest } = params;
    if (from === undefined || to === undefined) return true;
    const start = dayToUtcMs(from);
    const end = dayToUtcMs(addDays(to, 1));
    const time = row[window.time] as number;
    const until = window.until === undefined ? time : (row[window.until] as number);
    const seen = this.of(window);
    const series = JSON.stringify(rest);
    seen.ends.add(`${series} ${end}`);
    if (time === end) seen.atEnd.add(`${series} ${end}`);
    if (time === start) seen.atStart.add(`${series} ${start}`);
    if (time < start) seen.startsBefore = true;
    if (window.until !== undefined && until >= end) seen.endsAfter = true;
    if (time > start && until < end) return true;
    return this.once(table, row);
  }

  /** Marks a row stored before (the previous snapshot's, across the first window's edge): the same row from a window is not stored again. */
  seen(table: Table, row: Record<string, unknown>): void {
    this.once(table, row);
  }

  /** What the upstream answered to windows asked to tell its rule (see range-probe.ts). */
  asked(endpoint: string, facts: RangeFacts): void {
    const seen = this.of({ endpoint, time: '' });
    seen.asked = facts;
    if (facts.startsBefore !== undefined || facts.endsAfter !== undefined) seen.spans = true;
  }

  /** Each endpoint's rule, as far as its answers showed it. */
  rules(): Map<string, RangeRule> {
    const rules = new Map<string, RangeRule>();
    for (const [endpoint, seen] of this.evidence) {
      const unknown: NonNullable<RangeRule['unknown']> = [];
      const asked = seen.asked ?? {};
      const inclusive = asked.toInclusive ?? seen.atEnd.size > 0;
      const exclusive = asked.toInclusive === undefined ? [...seen.atStart].some((at) => seen.ends.has(at) && !seen.atEnd.has(at)) : !asked.toInclusive;
      seen.startsBefore ||= asked.startsBefore === true;
      seen.endsAfter ||= asked.endsAfter === true;
      const rule: { -readonly [K in keyof RangeRule]: RangeRule[K] } = {};
      if (inclusive !== exclusive) rule.toInclusive = inclusive;
      else unknown.push('toInclusive');
      if (seen.spans) {
        if (seen.startsBefore || seen.endsAfter) rule.by = seen.startsBefore && seen.endsAfter ? 'overlap' : seen.startsBefore ? 'end' : 'start';
        else unknown.push('by');
      }
      if (unknown.length) rule.unknown = unknown;
      rules.set(endpoint, rule);
    }
    return rules;
  }

  private of(window: Window): Evidence {
    let seen = this.evidence.get(window.endpoint);
    if (!seen) {
      seen = { spans: window.until !== undefined, atEnd: new Set(), atStart: new Set(), ends: new Set(), startsBefore: false, endsAfter: false };
      this.evidence.set(window.endpoint, seen);
    }
    return seen;
  }

  private once(table: Table, row: Record<string, unknown>): boolean {
    const identity = rowIdentity(table, row);
    if (this.edgeRows.has(identity)) return false;
    this.edgeRows.add(identity);
    return true;
  }
}

/** What a rule means for a reader, for the pull's summary: what could not be learned. */
export function unlearned(endpoint: string, rule: RangeRule): string[] {
  return (rule.unknown ?? []).map((what) =>
    what === 'toInclusive'
      ? `${endpoint}: whether a \`to\` day includes the next midnight (no row stood on a midnight to ask about); answered as the sample city does, without it`
      : `${endpoint}: whether a range returns rows by their start, end or overlap (no row spanned a midnight to ask about); answered by their start`,
  );
}
