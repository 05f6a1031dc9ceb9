import { dayToUtcMs } from '../../../core/calendar.ts';
import { rowOrder } from '../../../core/row-order.ts';
import type { RenderContext } from '../../vocabulary/render.ts';
import { stringify } from '../../vocabulary/written.ts';
import { enveloped } from '../serving.ts';
import { EMPTY, paramsIn, pathIn, type FileSource, type StaticFile } from '../static-files.ts';
import { rangeUnits } from '../time-range.ts';
import type { SeriesAnswer } from './declaration.ts';
import { monthLayout, nextMonth } from './layout.ts';

type Values = Record<string, string>;
type Row = Record<string, unknown>;

/** A month of every air sensor at city scale is about 360,000 rows. */
const SERIES_IN_ONE_SCAN = 1_000_000;

/**
 * Per combination of parents, every UTC month from the series' first row to its last (months
 * between with no rows: an empty series); a series with no rows has no files. A month holds the
 * rows its range returns by the snapshot's rule: with a `to` that includes the next midnight, a
 * reading at the first instant of a month is in the month before's file too. Months whose rows
 * are unchanged are carried. When the changed months of all series hold few rows (a rebuild
 * after a pull: the last month of each), they are read in one scan; else each series is read
 * from its first changed month on.
 */
export async function* seriesFiles(source: FileSource, answer: SeriesAnswer): AsyncGenerator<StaticFile> {
  const { dataset, rows, context } = source;
  const resource = rows.resource(dataset, answer.resource);
  const table = dataset.tables[resource.table]!;
  const envelope: SeriesAnswer['envelope'] = (items, params, ctx) => enveloped(answer.envelope(items, params, ctx), source.envelope, { count: items.length });
  const order = [answer.time, ...rowOrder(table).filter((column) => column !== answer.time)];
  // One after the other: they share a connection, on which a new query ends a running one.
  const parentRows: Row[][] = [];
  for (const parent of answer.parents) parentRows.push(await rows.all(dataset, parent.resource));
  const by = answer.parents.map((parent) => parent.column);
  const rule = source.range ?? {};
  const groups = await source.prints.groupPrints(dataset, answer.resource, by, answer.time, 'month', { rule });
  const monthsHolding = rangeUnits(rule, 'month');
  const monthsOf = new Map<string, Map<string, { print: string; rows: number; last: number }>>();
  for (const group of groups) {
    const key = JSON.stringify(group.values);
    if (!monthsOf.has(key)) monthsOf.set(key, new Map());
    monthsOf.get(key)!.set(group.unit, group);
  }
  const combinations = parentRows.reduce<Row[][]>((acc, list) => acc.flatMap((combo) => list.map((row) => [...combo, row])), [[]]);
  type Series = {
    key: string;
    values: Values;
    equal: Record<string, unknown>;
    months: { month: string; path: string; input: string }[];
    changed: Set<string>;
    found: Map<string, { print: string; rows: number; last: number }>;
    /** Changed months whose file in the tree in use shows rows that are still the first of the month: month → the time of its last. */
    after: Map<string, number>;
  };
  const series: Series[] = [];
  for (const combo of combinations) {
    const key = JSON.stringify(answer.parents.map((_, i) => String(combo[i]![answer.parents[i]!.key])));
    const found = monthsOf.get(key);
    if (!found) continue;
    const values: Values = Object.fromEntries(answer.parents.map((parent, i) => [parent.param, String(combo[i]![parent.match[0]!])]));
    const equal = Object.fromEntries(answer.parents.map((parent, i) => [parent.column, combo[i]![parent.key]]));
    const present = [...found.keys()].sort();
    // A month's input: its rows' print and the time of its last row (see `after`).
    const months: { month: string; path: string; input: string }[] = [];
    for (let month = present[0]!; month <= present.at(-1)!; month = nextMonth(month)) {
      const group = found.get(month);
      months.push({ month, path: pathIn(source, monthLayout, values, { kind: 'month', month }), input: group ? `${group.print}@${group.last}` : EMPTY });
    }
    const changed = new Set(months.filter((m) => source.previousInput(m.path) !== m.input).map((m) => m.month));
    series.push({ key, values, equal, months, changed, found, after: new Map() });
  }

  // A month that went on (the last of a series, after a pull) keeps the rows its file shows when
  // they are still the month's first rows, up to the same last time: only the rows after them are
  // read and rendered, and added to the file (see extend), if the envelope ends with its rows.
  const candidates = new Map<string, { s: Series; month: string; print: string }[]>();
  for (const s of series) {
    for (const { month, path } of s.months.filter((m) => s.changed.has(m.month))) {
      const [print, last] = source.previousInput(path)?.split('@') ?? [];
      if (!print || last === undefined || !(Number(last) < s.found.get(month)!.last)) continue;
      const at = `${month}|${last}`;
      if (!candidates.has(at)) candidates.set(at, []);
      candidates.get(at)!.push({ s, month, print });
    }
  }
  for (const [at, wanting] of candidates) {
    const [month, last] = at.split('|') as [string, string];
    const prints = await source.prints.printsBetween(dataset, answer.resource, by, dayToUtcMs(`${month}-01`), Number(last) + 1);
    for (const { s, print } of wanting) if (prints.get(s.key) === print) s.after.set(month, Number(last));
  }
  /** Where a series' changed rows begin (epoch ms): the first changed month, or after what a month kept (a reading is in no month before its own). */
  const changedFrom = (s: Series) => Math.min(...[...s.changed].map((month) => (s.after.has(month) ? s.after.get(month)! + 1 : dayToUtcMs(`${month}-01`))));

  /** Adds the rendered rows of the months asked for to `byMonth` (rows in time order), leaving out what a month kept. */
  const collect = (byMonth: Map<string, unknown[]>, sorted: readonly Row[], s: Series) => {
    for (const row of sorted) {
      const time = row[answer.time] as number;
      let rendered: unknown;
      for (const month of monthsHolding(time)) {
        // Kept: what is before 1 ms after the month's last row, as printsBetween counted it.
        if (!s.changed.has(month) || time < (s.after.get(month) ?? -Infinity) + 1) continue;
        (byMonth.get(month) ?? byMonth.set(month, []).get(month)!).push((rendered ??= resource.render(row, context)));
      }
    }
  };
  // One scan for all series from the earliest changed row on, when what it holds is small.
  const changing = series.filter((s) => s.changed.size);
  const earliest = Math.min(...changing.map(changedFrom));
  const held = changing.reduce((sum, s) => sum + [...s.found.values()].reduce((n, group) => n + (group.last >= earliest ? group.rows : 0), 0), 0);
  let scanned: Map<string, Row[]> | undefined;
  if (changing.length > 1 && held <= (source.seriesInOneScan ?? SERIES_IN_ONE_SCAN)) {
    scanned = new Map(changing.map((s) => [s.key, []]));
    for await (const batch of rows.stream(dataset, answer.resource, { from: earliest }, { order })) {
      for (const row of batch) scanned.get(JSON.stringify(answer.parents.map((parent) => String(row[parent.column]))))?.push(row);
    }
  }

  for (const s of series) {
    const { key, values, equal, months, changed } = s;
    const byMonth = new Map<string, unknown[]>();
    if (changed.size && scanned) {
      collect(byMonth, scanned.get(key)!, s);
      scanned.delete(key);
    } else if (changed.size) {
      // A series' changed months are its last few, so what is held stays small.
      for await (const batch of rows.stream(dataset, answer.resource, { equal, from: changedFrom(s) }, { order })) collect(byMonth, batch, s);
    }
    for (const m of months) {
      if (!changed.has(m.month)) {
        yield { type: 'carried', files: [m] };
        continue;
      }
      const params = paramsIn(source, monthLayout, values, { kind: 'month', month: m.month });
      const items = byMonth.get(m.month) ?? [];
      const ending = s.after.has(m.month) ? endingAfterRows(envelope, items, params, context) : undefined;
      if (ending !== undefined)
        yield { type: 'appended', path: m.path, extend: { ending, insert: `,${items.map((item) => stringify(item)).join(',')}` }, input: m.input };
      else if (s.after.has(m.month)) {
        // The envelope is not one to add rows to: the month is rendered whole after all.
        const whole: unknown[] = [];
        // Up to the next month's first instant included, which the rule may return.
        const narrow = { equal, from: dayToUtcMs(`${m.month}-01`), to: dayToUtcMs(`${nextMonth(m.month)}-01`) + 1 };
        for await (const batch of rows.stream(dataset, answer.resource, narrow, { order })) {
          for (const row of batch) if (monthsHolding(row[answer.time] as number).includes(m.month)) whole.push(resource.render(row, context));
        }
        yield { type: 'rendered', path: m.path, body: envelope(whole, params, context), input: m.input };
      } else yield { type: 'rendered', path: m.path, body: envelope(items, params, context), input: m.input };
    }
  }
}

/**
 * What follows the rows in a series' JSON body, when its envelope puts the rows last and adds
 * nothing made from them: its body with no rows is `…[]<ending>`, and with rows `…[<rows>]<ending>`.
 * Checked with rows of the file itself, so an envelope that counts or reads them is seen.
 */
function endingAfterRows(
  envelope: SeriesAnswer['envelope'],
  items: readonly unknown[],
  params: Record<string, unknown>,
  context: RenderContext,
): string | undefined {
  if (!items.length) return undefined;
  const probe = [items[0], items.at(-1)];
  try {
    const empty = JSON.stringify(envelope([], params, context));
    const at = empty.lastIndexOf('[]');
    if (at < 0) return undefined;
    const ending = empty.slice(at + 1);
    const two = JSON.stringify(envelope(probe, params, context));
    return two === `${empty.slice(0, at + 1)}${probe.map((item) => stringify(item)).join(',')}${ending}` ? ending : undefined;
  } catch {
    return undefined;
  }
}
