import type { ChartData } from '../../datasets/vocabulary/figure.ts';
import type { Language } from '../../core/text.ts';
import { uiOf } from '../i18n/ui.ts';
import { formatNumber, locale, niceTicks, timeOf, timeTicks } from './scales.ts';

/**
 * A published chart (datasets/vocabulary/figure.ts) laid out for SVG at build time: one panel per
 * `panel` value (small multiples sharing the x axis, each with its own y axis), one colour per
 * `series` value (the same in every panel), bands behind the data; one y scale for all panels
 * when the declaration shares it. Values are named in the page's language where the declaration
 * names them (`labels`), and shown as given otherwise. A last period the data ends inside is drawn
 * apart (dashed, lighter). Each panel carries its points for the tooltips. Lines are one path per series
 * and panel, broken where data is missing and thinned to at most ~600 points, and the tooltips'
 * columns thinned by the same buckets, so even the largest chart stays a light page.
 */

/** Series colours, distinguishable and readable on the light and the dark background. */
export const SERIES_COLOURS = ['#2a78c2', '#d1495b', '#2e9e5b', '#8e5cc7', '#e07b12', '#1aa3a3', '#a0652d', '#d45fa8', '#6d7a86', '#9a9d16', '#4a5bd4', '#c2410c'];

export interface Series {
  readonly key: string;
  /** The series' name in the page's language, or as given (`lang` then says in which). */
  readonly label: Label;
  readonly colour: string;
}

/** A text shown on the page: translated, or as the data gives it, in the language `lang` names. */
export interface Label {
  readonly text: string;
  readonly lang?: Language;
}

/**
 * Where the pointer or the keyboard can stop in a panel: one x value, the values of every series
 * there, in SVG units. Read by the tooltip script (site/client/chart-tips.ts).
 */
export interface TipColumn {
  readonly x: number;
  readonly label: string;
  readonly points: readonly { readonly series: number; readonly y: number; readonly value: string }[];
}

export interface PanelGeometry {
  readonly key: string;
  readonly title: string;
  readonly titleLang?: Language;
  /** The y axis's title: the panel's declared name (it carries the unit), or the chart's. */
  readonly axisTitle: string;
  readonly xTicks: readonly { readonly x: number; readonly label: string; readonly lang?: Language }[];
  readonly yTicks: readonly { readonly y: number; readonly label: string }[];
  readonly bands: readonly { readonly y: number; readonly height: number; readonly colour: string; readonly label: string }[];
  readonly lines: readonly { readonly series: number; readonly d: string; readonly points: number }[];
  /** The stretch of each line into an incomplete last period. */
  readonly incompleteLines: readonly { readonly series: number; readonly d: string }[];
  readonly bars: readonly { readonly series: number; readonly x: number; readonly y: number; readonly width: number; readonly height: number; readonly title: string; readonly incomplete: boolean }[];
  /** The incomplete last period's stretch of the plot, shaded. */
  readonly incompleteSpan?: { readonly x: number; readonly width: number };
  /** At most ~600, the same x values in every drawing of the chart (only their positions differ). */
  readonly tips: readonly TipColumn[];
  /** The panel's values, for its text alternative. */
  readonly yMin: number;
  readonly yMax: number;
  readonly rows: number;
}

export interface ChartGeometry {
  readonly width: number;
  readonly height: number;
  readonly plot: { readonly left: number; readonly top: number; readonly right: number; readonly bottom: number };
  readonly series: readonly Series[];
  /** Distinct bands by colour and label, in order, for the legend. */
  readonly bandLegend: readonly { readonly colour: string; readonly label: string; readonly lang?: Language }[];
  /** Set when panels have y scales of their own, which the page says. */
  readonly ownScales: boolean;
  /** The incomplete last period, for the note: its label and the last day covered. */
  readonly incomplete?: { readonly label: string; readonly through: string };
  readonly panels: readonly PanelGeometry[];
  readonly xFirst: string;
  readonly xLast: string;
}

type Row = ChartData['rows'][number];

/** At most this many points per line: pairs of (min, max) per bucket. */
const MAX_POINTS = 600;

/**
 * A value of the data named in the page's language: a panel's declared name, a label of the
 * declaration, a labelled term followed by a unit in parentheses (`Temperatura (°C)`), or the value
 * as given, marked with the language the upstream writes in.
 */
export function labelOf(chart: Pick<ChartData, 'panels' | 'labels' | 'valuesLanguage'>, value: string, lang: Language): Label {
  const named = chart.panels[value] ?? chart.labels?.[value];
  if (named) return { text: named[lang] };
  const withUnit = /^(.*\S) (\([^()]*\))$/.exec(value);
  const term = withUnit && chart.labels?.[withUnit[1]!];
  if (term) return { text: `${term[lang]} ${withUnit[2]}` };
  return chart.valuesLanguage && chart.valuesLanguage !== lang && /\p{L}/u.test(value) ? { text: value, lang: chart.valuesLanguage } : { text: value };
}

/** An x value as a reader names it: a period of time in the page's language, or a category's label. */
function xLabelOf(chart: ChartData, x: string, lang: Language): Label {
  if (!chart.x.time) return labelOf(chart, x, lang);
  const time = timeOf(x);
  const period = chart.x.period ?? 'day';
  const options: Intl.DateTimeFormatOptions =
    period === 'month' ? { month: 'long', year: 'numeric' }
    : period === 'year' ? { year: 'numeric' }
    : x.includes('T') ? { dateStyle: 'medium', timeStyle: 'short' }
    : { dateStyle: 'medium' };
  const formatted = new Intl.DateTimeFormat(locale(lang), { ...options, timeZone: 'UTC' }).format(time);
  return { text: period === 'week' ? uiOf(lang).readableCharts.weekOf(formatted) : formatted };
}

/** A day (YYYY-MM-DD) written out in the page's language. */
export const dayLabel = (day: string, lang: Language) => new Intl.DateTimeFormat(locale(lang), { dateStyle: 'long', timeZone: 'UTC' }).format(timeOf(day));

/**
 * `wide` fills a page; `phone` is drawn for a phone's width (about 335 px across at 375 px): SVG
 * text scales with the drawing, and the wide one's 12-unit labels would show 4 to 8 px high there.
 */
type ChartSize = 'wide' | 'phone';

export function chartGeometry(chart: ChartData, lang: Language, size: ChartSize = 'wide'): ChartGeometry {
  const panelKeys = unique(chart.rows.map((row) => row.panel ?? ''));
  const seriesKeys = unique(chart.rows.map((row) => row.series ?? ''));
  const single = panelKeys.length <= 1;
  const width = size === 'phone' ? 320 : single ? 960 : 480;
  const height = size === 'phone' ? 230 : single ? 340 : 250;
  const series = seriesKeys.map((key, i) => ({ key, label: labelOf(chart, key, lang), colour: seriesKeys.length === 1 && !key ? 'var(--accent)' : SERIES_COLOURS[i % SERIES_COLOURS.length]! }));
  const seriesIndex = new Map(seriesKeys.map((key, i) => [key, i]));

  // The x axis is shared: time, or categories in the order the SQL gave them.
  const categories = chart.x.time ? [] : unique(chart.rows.map((row) => row.x));
  const categoryIndex = new Map(categories.map((x, i) => [x, i]));
  const xValue = (row: Row) => (chart.x.time ? timeOf(row.x) : categoryIndex.get(row.x)!);
  const xs = chart.rows.map(xValue);
  const xMin = xs.length ? Math.min(...xs) : 0;
  const xMax = xs.length ? Math.max(...xs) : 1;

  // Room on the left for the widest y label of any panel.
  const byPanel = new Map(panelKeys.map((key) => [key, chart.rows.filter((row) => (row.panel ?? '') === key)]));
  const shared = chart.y.scale === 'shared';
  const sharedDomain = shared ? yDomain(chart.rows.map((row) => row.y), chart.kind === 'bar', single ? 6 : 4) : undefined;
  const yDomains = new Map([...byPanel].map(([key, rows]) => [key, sharedDomain ?? yDomain(rows.map((row) => row.y), chart.kind === 'bar', single ? 6 : 4)]));
  const compact = (domain: { min: number; max: number }) => Math.max(Math.abs(domain.min), Math.abs(domain.max)) >= 10_000;
  const tickLabel = (tick: number, domain: { min: number; max: number; fractionDigits: number }) => formatNumber(tick, lang, compact(domain), domain.fractionDigits);
  const widestLabel = Math.max(3, ...[...yDomains.values()].flatMap((domain) => domain.ticks.map((tick) => tickLabel(tick, domain).length)));
  const plot = { left: Math.round(widestLabel * 7 + 14), top: 26, right: width - 14, bottom: height - 40 };
  const plotWidth = plot.right - plot.left;

  const scaleX = chart.x.time
    ? (value: number) => plot.left + (xMax === xMin ? plotWidth / 2 : ((value - xMin) / (xMax - xMin)) * plotWidth)
    : (value: number) => plot.left + ((value + 0.5) / Math.max(categories.length, 1)) * plotWidth;
  const xTicks = chart.x.time
    ? timeTicks(xMin, xMax, Math.max(2, Math.floor(plotWidth / 90)), lang).map((tick) => ({ x: scaleX(tick.value), label: tick.label }))
    : thinned(categories, Math.max(2, Math.floor(plotWidth / 50))).map((x) => {
        const label = labelOf(chart, x, lang);
        return { x: scaleX(categoryIndex.get(x)!), label: label.text, ...(label.lang ? { lang: label.lang } : {}) };
      });
  const step = chart.x.time ? smallestStep(chart.rows, xValue) : 1;
  const gap = 1.5 * step;
  const incompleteX = chart.incomplete?.x;

  const panels = panelKeys.map((key): PanelGeometry => {
    const rows = byPanel.get(key)!;
    const domain = yDomains.get(key)!;
    const scaleY = (value: number) => plot.bottom - ((value - domain.min) / (domain.max - domain.min)) * (plot.bottom - plot.top);
    const clamp = (value: number) => Math.min(domain.max, Math.max(domain.min, value));
    const bands = chart.bands
      .filter((band) => band.panel === key && band.to > domain.min && band.from < domain.max)
      .map((band) => ({ y: scaleY(clamp(band.to)), height: scaleY(clamp(band.from)) - scaleY(clamp(band.to)), colour: band.color, label: labelOf(chart, band.label, lang).text }));
    const lines: PanelGeometry['lines'][number][] = [];
    const incompleteLines: PanelGeometry['incompleteLines'][number][] = [];
    const bars: PanelGeometry['bars'][number][] = [];
    if (chart.kind === 'line') {
      for (const [seriesKey, seriesRows] of groupBy(rows, (row) => row.series ?? '')) {
        const index = seriesIndex.get(seriesKey)!;
        const sorted = [...seriesRows].sort((a, b) => xValue(a) - xValue(b));
        // The incomplete last period is drawn apart, from the last complete point.
        const last = sorted.at(-1)!;
        const apart = last.x === incompleteX;
        const complete = apart ? sorted.slice(0, -1) : sorted;
        if (complete.length) {
          const path = linePath(complete.map((row) => ({ x: xValue(row), y: row.y })), gap, scaleX, scaleY, plot.left, plotWidth);
          lines.push({ series: index, d: path.d, points: path.points });
        }
        if (apart) {
          const from = complete.at(-1);
          const to = { x: scaleX(xValue(last)), y: scaleY(last.y) };
          const start = from && xValue(last) - xValue(from) <= gap ? { x: scaleX(xValue(from)), y: scaleY(from.y) } : to;
          incompleteLines.push({ series: index, d: `M${round(start.x)} ${round(start.y)}L${round(to.x)} ${round(to.y)}` });
        }
      }
    } else {
      const slot = plotWidth / Math.max(categories.length, 1);
      const barWidth = (slot * 0.7) / seriesKeys.length;
      for (const row of rows) {
        const index = seriesIndex.get(row.series ?? '')!;
        const x = scaleX(categoryIndex.get(row.x)!) - (slot * 0.7) / 2 + index * barWidth;
        const [top, bottom] = [scaleY(Math.max(row.y, 0)), scaleY(Math.min(row.y, 0))];
        const title = `${row.series ? `${labelOf(chart, row.series, lang).text}, ` : ''}${xLabelOf(chart, row.x, lang).text}: ${formatNumber(row.y, lang)}`;
        bars.push({ series: index, x: round(x), y: round(top), width: round(Math.max(barWidth - 1, 1)), height: round(bottom - top), title, incomplete: row.x === incompleteX });
      }
    }
    const values = rows.map((row) => row.y);
    const title = key ? labelOf(chart, key, lang) : { text: '' };
    const declared = chart.panels[key];
    // A column per x value: the tooltip's stops, every series's value there; thinned as the lines are.
    const columns = [...groupBy(rows, (row) => row.x)].sort(([, a], [, b]) => xValue(a[0]!) - xValue(b[0]!));
    const tips = thinColumns(columns, (row) => (scaleX(xValue(row)) - plot.left) / plotWidth, incompleteX).map(([x, members]): TipColumn => {
      const label = xLabelOf(chart, x, lang).text;
      return {
        x: round(scaleX(xValue(members[0]!))),
        label: x === incompleteX ? `${label} (${uiOf(lang).readableCharts.incompleteTip})` : label,
        points: members.map((row) => ({ series: seriesIndex.get(row.series ?? '')!, y: round(scaleY(row.y)), value: formatNumber(row.y, lang) })),
      };
    });
    const incompletePosition = incompleteX === undefined ? undefined : (chart.x.time ? timeOf(incompleteX) : categoryIndex.get(incompleteX));
    const half = chart.x.time ? (Number.isFinite(step) ? step / 2 : 0) : 0.5;
    const spanLeft = incompletePosition === undefined ? 0 : Math.max(plot.left, scaleX(incompletePosition - half));
    return {
      key,
      title: title.text,
      ...(title.lang ? { titleLang: title.lang } : {}),
      axisTitle: declared ? declared[lang] : chart.y.label[lang],
      xTicks,
      yTicks: domain.ticks.map((tick) => ({ y: round(scaleY(tick)), label: tickLabel(tick, domain) })),
      bands: bands.map((band) => ({ ...band, y: round(band.y), height: round(band.height) })),
      lines,
      incompleteLines,
      bars,
      ...(incompletePosition === undefined ? {} : { incompleteSpan: { x: round(spanLeft), width: round(Math.max(plot.right - spanLeft, 4)) } }),
      tips,
      yMin: values.length ? Math.min(...values) : 0,
      yMax: values.length ? Math.max(...values) : 0,
      rows: rows.length,
    };
  });

  const bandLegend = uniqueBy(
    chart.bands.map((band) => {
      const label = labelOf(chart, band.label, lang);
      return { colour: band.color, label: label.text, ...(label.lang ? { lang: label.lang } : {}) };
    }),
    (band) => `${band.colour}\n${band.label}`,
  );
  const sortedX = chart.x.time ? [...chart.rows.map((row) => row.x)].sort() : categories;
  const incomplete = chart.incomplete && { label: xLabelOf(chart, chart.incomplete.x, lang).text, through: dayLabel(chart.incomplete.through, lang) };
  return {
    width, height, plot, series, bandLegend, panels, ownScales: panels.length > 1 && !shared, ...(incomplete ? { incomplete } : {}),
    xFirst: sortedX[0] ?? '', xLast: sortedX[sortedX.length - 1] ?? '',
  };
}

/** The y domain of a panel: its values, from zero when zero is near (always for bars), grown to round ticks. */
function yDomain(values: readonly number[], bars: boolean, count: number) {
  let min = values.length ? Math.min(...values) : 0;
  let max = values.length ? Math.max(...values) : 1;
  if (bars || (min >= 0 && min <= 0.4 * max)) min = Math.min(min, 0);
  if (bars || (max <= 0 && max >= 0.4 * min)) max = Math.max(max, 0);
  return niceTicks(min, max, count);
}

/** The bucket of a position across the plot (0 at its left, 1 at its right) when thinning to `buckets`. */
const bucketOf = (position: number, buckets: number) => Math.max(0, Math.min(buckets - 1, Math.floor(position * buckets)));

/**
 * A line as one path: a new subpath after a gap in x wider than `gap` (a lone point becomes a dot,
 * drawn by the round line cap), thinned to the lowest and highest point of each of ~300 columns
 * of the plot (those the tooltips are thinned by, see `thinColumns`).
 * Coordinates are in tenths, relative after each subpath's start, to keep the markup small.
 */
function linePath(points: readonly { x: number; y: number }[], gap: number, scaleX: (x: number) => number, scaleY: (y: number) => number, plotLeft: number, plotWidth: number) {
  const buckets = Math.min(MAX_POINTS / 2, Math.floor(plotWidth));
  const segments: { x: number; y: number }[][] = [];
  let current: { x: number; y: number }[] = [];
  for (const [i, point] of points.entries()) {
    if (i > 0 && point.x - points[i - 1]!.x > gap) {
      segments.push(current);
      current = [];
    }
    current.push({ x: scaleX(point.x), y: scaleY(point.y) });
  }
  if (current.length) segments.push(current);
  let d = '';
  let count = 0;
  for (const segment of segments) {
    const kept = points.length > MAX_POINTS ? thin(segment, (point) => bucketOf((point.x - plotLeft) / plotWidth, buckets)) : segment;
    let [px, py] = [Math.round(kept[0]!.x * 10), Math.round(kept[0]!.y * 10)];
    d += `M${px / 10} ${py / 10}${kept.length === 1 ? 'l0 0' : 'l'}`;
    const parts: string[] = [];
    for (const point of kept.slice(1)) {
      const [nx, ny] = [Math.round(point.x * 10), Math.round(point.y * 10)];
      parts.push(`${(nx - px) / 10}${ny - py < 0 ? '' : ' '}${(ny - py) / 10}`);
      [px, py] = [nx, ny];
    }
    d += parts.join(' ').replaceAll(' -', '-');
    count += kept.length;
  }
  return { d, points: count };
}

/** The lowest and highest point of each bucket, in x order. */
function thin<T extends { x: number; y: number }>(points: readonly T[], bucketOf: (point: T) => number): T[] {
  const kept: T[] = [];
  for (const [, members] of groupBy(points, bucketOf)) {
    let low = members[0]!;
    let high = members[0]!;
    for (const point of members) {
      if (point.y < low.y) low = point;
      if (point.y > high.y) high = point;
    }
    if (low === high) kept.push(low);
    else kept.push(...(low.x <= high.x ? [low, high] : [high, low]));
  }
  return kept;
}

/**
 * A panel's tooltip columns (x value, its rows; in x order) thinned as its lines are, when there
 * are more than the lines keep points: in each of the ~300 buckets across the plot, the column
 * holding the bucket's lowest value and the one holding its highest, so a peak the line shows can
 * be pointed at; the incomplete last period is always kept. `position` places a row across the
 * plot (0 to 1), the same in every drawing, so every drawing keeps the same columns.
 */
function thinColumns(columns: readonly (readonly [string, Row[]])[], position: (row: Row) => number, incompleteX: string | undefined): (readonly [string, Row[]])[] {
  if (columns.length <= MAX_POINTS) return [...columns];
  const kept = new Set<readonly [string, Row[]]>();
  for (const [, members] of groupBy(columns, ([, rows]) => bucketOf(position(rows[0]!), MAX_POINTS / 2))) {
    let low = members[0]!;
    let high = members[0]!;
    const lowest = (column: readonly [string, Row[]]) => Math.min(...column[1].map((row) => row.y));
    const highest = (column: readonly [string, Row[]]) => Math.max(...column[1].map((row) => row.y));
    for (const column of members) {
      if (lowest(column) < lowest(low)) low = column;
      if (highest(column) > highest(high)) high = column;
    }
    kept.add(low).add(high);
  }
  return columns.filter((column) => kept.has(column) || column[0] === incompleteX);
}

/** The smallest distance between consecutive x values of a series: the data's step (a day, a week, a month). */
function smallestStep(rows: readonly Row[], xValue: (row: Row) => number): number {
  let step = Infinity;
  for (const [, members] of groupBy(rows, (row) => `${row.panel ?? ''}\n${row.series ?? ''}`)) {
    const xs = members.map(xValue).sort((a, b) => a - b);
    for (let i = 1; i < xs.length; i++) if (xs[i]! > xs[i - 1]!) step = Math.min(step, xs[i]! - xs[i - 1]!);
  }
  return step;
}

/** At most `count` of the values, evenly spaced, the first always included. */
function thinned<T>(values: readonly T[], count: number): T[] {
  const every = Math.ceil(values.length / count);
  return values.filter((_, i) => i % every === 0);
}

function groupBy<T, K>(items: readonly T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

const unique = (values: readonly string[]) => [...new Set(values)];
const uniqueBy = <T>(items: readonly T[], keyOf: (item: T) => string) => [...new Map(items.map((item) => [keyOf(item), item])).values()];
const round = (value: number) => Math.round(value * 10) / 10;
