import type { ChartData } from '../../datasets/vocabulary/figure.ts';
import type { Language } from '../../core/text.ts';
import { layOutCategoryLabels, LINE_HEIGHT, ROW_GAP } from './category-labels.ts';
import { dayLabel, labelOf, xLabelOf, type Label } from './chart-labels.ts';
import { panelGeometry, type ChartFrame, type PanelGeometry, type YDomain } from './chart-panel.ts';
import { smallestStep, unique, uniqueBy, type Row } from './chart-rows.ts';
import { formatNumber, niceTicks, timeOf, timeTicks } from './scales.ts';
import { extremes } from './extremes.ts';

/**
 * A published chart (datasets/vocabulary/figure.ts) laid out for SVG at build time: one panel per
 * `panel` value (small multiples sharing the x axis, each with its own y axis), one colour per
 * `series` value (the same in every panel), bands behind the data; one y scale for all panels
 * when the declaration shares it. Values are named in the page's language where the declaration
 * names them (`labels`, chart-labels.ts), and shown as given otherwise. A last period the data ends
 * inside is drawn apart (dashed, lighter). Each panel (chart-panel.ts) carries its points for the
 * tooltips. Lines are one path per series and panel, broken where data is missing and thinned to
 * at most ~600 points, and the tooltips' columns thinned by the same buckets (chart-lines.ts), so
 * even the largest chart stays a light page. This module lays out what the panels share: the
 * drawing's size, the series, the x axis, each panel's y domain and the room for its labels.
 */

/** Series colours, distinguishable and readable on the light and the dark background. */
export const SERIES_COLOURS = [
  '#2a78c2',
  '#d1495b',
  '#2e9e5b',
  '#8e5cc7',
  '#e07b12',
  '#1aa3a3',
  '#a0652d',
  '#d45fa8',
  '#6d7a86',
  '#9a9d16',
  '#4a5bd4',
  '#c2410c',
];

export interface Series {
  readonly key: string;
  /** The series' name in the page's language, or as given (`lang` then says in which). */
  readonly label: Label;
  readonly colour: string;
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
  // Before the room the x axis's labels take beyond one line (see below).
  const baseHeight = size === 'phone' ? 230 : single ? 340 : 250;
  const series = seriesKeys.map((key, i) => ({
    key,
    label: labelOf(chart, key, lang),
    colour: seriesKeys.length === 1 && !key ? 'var(--accent)' : SERIES_COLOURS[i % SERIES_COLOURS.length]!,
  }));
  const seriesIndex = new Map(seriesKeys.map((key, i) => [key, i]));

  // The x axis is shared: time, or categories in the order the SQL gave them.
  const categories = chart.x.time ? [] : unique(chart.rows.map((row) => row.x));
  const categoryIndex = new Map(categories.map((x, i) => [x, i]));
  const xValue = (row: Row) => (chart.x.time ? timeOf(row.x) : categoryIndex.get(row.x)!);
  const { min: xMin, max: xMax } = extremes(chart.rows.map(xValue)) ?? { min: 0, max: 1 };

  // Room on the left for the widest y label of any panel.
  const byPanel = new Map(panelKeys.map((key) => [key, chart.rows.filter((row) => (row.panel ?? '') === key)]));
  const shared = chart.y.scale === 'shared';
  const sharedDomain = shared
    ? yDomain(
        chart.rows.map((row) => row.y),
        chart.kind === 'bar',
        single ? 6 : 4,
      )
    : undefined;
  const yDomains = new Map(
    [...byPanel].map(([key, rows]) => [
      key,
      sharedDomain ??
        yDomain(
          rows.map((row) => row.y),
          chart.kind === 'bar',
          single ? 6 : 4,
        ),
    ]),
  );
  const compact = (domain: { min: number; max: number }) => Math.max(Math.abs(domain.min), Math.abs(domain.max)) >= 10_000;
  const tickLabel = (tick: number, domain: YDomain) => formatNumber(tick, lang, compact(domain), domain.fractionDigits);
  const widestLabel = Math.max(3, ...[...yDomains.values()].flatMap((domain) => domain.ticks.map((tick) => tickLabel(tick, domain).length)));
  const plot = { left: Math.round(widestLabel * 7 + 14), top: 26, right: width - 14, bottom: baseHeight - 40 };
  const plotWidth = plot.right - plot.left;

  const scaleX = chart.x.time
    ? (value: number) => plot.left + (xMax === xMin ? plotWidth / 2 : ((value - xMin) / (xMax - xMin)) * plotWidth)
    : (value: number) => plot.left + ((value + 0.5) / Math.max(categories.length, 1)) * plotWidth;
  // The x axis's labels: short dates on one line, or categories laid out to stay apart, on up to
  // two rows of up to three lines; the drawing grows below the plot by what they take beyond a line.
  const firstBaseline = plot.bottom + 18;
  let labelsHeight = 0;
  let xTicks: PanelGeometry['xTicks'];
  if (chart.x.time) {
    xTicks = timeTicks(
      xMin,
      xMax,
      Math.max(2, Math.floor(plotWidth / 90)),
      lang,
      chart.rows.some((row) => row.x.includes('T')),
    ).map((tick) => ({
      x: scaleX(tick.value),
      label: tick.label,
      lines: [tick.label],
      labelX: scaleX(tick.value),
      labelY: firstBaseline,
      markTo: plot.bottom + 5,
    }));
  } else {
    const labels = categories.map((x) => labelOf(chart, x, lang));
    const layout = layOutCategoryLabels(
      labels.map((label) => label.text),
      categories.map((_, i) => scaleX(i)),
      plotWidth / Math.max(categories.length, 1),
      width,
    );
    // Each row as high as its labels' lines; the second row's tick marks reach down to its labels.
    const rowTops = layout.rowLines.map((_, row) => layout.rowLines.slice(0, row).reduce((sum, lines) => sum + lines * LINE_HEIGHT + ROW_GAP, 0));
    const lineCount = layout.rowLines.reduce((sum, count) => sum + count, 0);
    // Beyond one line, with some air between the last and the axis's title.
    labelsHeight = lineCount > 1 ? (lineCount - 1) * LINE_HEIGHT + layout.rowLines.length * ROW_GAP : 0;
    xTicks = layout.labels.map(({ index, x, lines, row }) => {
      const label = labels[index]!;
      const labelY = firstBaseline + rowTops[row]!;
      return {
        x: scaleX(index),
        label: label.text,
        ...(label.lang ? { lang: label.lang } : {}),
        lines,
        labelX: x,
        labelY,
        markTo: row ? labelY - 12 : plot.bottom + 5,
      };
    });
  }
  const height = baseHeight + labelsHeight;
  const step = chart.x.time ? smallestStep(chart.rows, xValue) : 1;

  const frame: ChartFrame = { chart, lang, plot, xValue, scaleX, xTicks, categoryIndex, seriesIndex, step, tickLabel };
  const panels = panelKeys.map((key) => panelGeometry(frame, key, byPanel.get(key)!, yDomains.get(key)!));

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
    width,
    height,
    plot,
    series,
    bandLegend,
    panels,
    ownScales: panels.length > 1 && !shared,
    ...(incomplete ? { incomplete } : {}),
    xFirst: sortedX[0] ?? '',
    xLast: sortedX[sortedX.length - 1] ?? '',
  };
}

/** The y domain of a panel: its values, from zero when zero is near (always for bars), grown to round ticks. */
function yDomain(values: readonly number[], bars: boolean, count: number) {
  let { min, max } = extremes(values) ?? { min: 0, max: 1 };
  if (bars || (min >= 0 && min <= 0.4 * max)) min = Math.min(min, 0);
  if (bars || (max <= 0 && max >= 0.4 * min)) max = Math.max(max, 0);
  return niceTicks(min, max, count);
}
