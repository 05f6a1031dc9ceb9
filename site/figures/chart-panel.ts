import type { ChartData } from '../../datasets/vocabulary/figure.ts';
import type { Language } from '../../core/text.ts';
import { uiOf } from '../i18n/ui.ts';
import { labelOf, xLabelOf, yLabelOf } from './chart-labels.ts';
import { linePath, thinColumns } from './chart-lines.ts';
import { groupBy, type Row } from './chart-rows.ts';
import { formatNumber, type niceTicks, timeOf } from './scales.ts';
import { extremes } from './extremes.ts';

/**
 * One panel of a chart laid out for SVG: its y axis, its bands, its marks (a path per series, or
 * bars), the stretch of an incomplete last period, and the points its tooltips stop at.
 */

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
  /** What the panel's values are, with their unit: its declared name, or the chart's y label. Tooltips name values by it. */
  readonly valueName: string;
  /** The y axis's title: the value name, unless the title shown above the panel (its own, or the chart's) already says it. */
  readonly axisTitle?: string;
  /**
   * The x axis's ticks: where each is, its mark down to `markTo`, its label whole, and as drawn:
   * its lines, centred at `labelX`, the first line's baseline at `labelY`.
   */
  readonly xTicks: readonly {
    readonly x: number;
    readonly label: string;
    readonly lang?: Language;
    readonly lines: readonly string[];
    readonly labelX: number;
    readonly labelY: number;
    readonly markTo: number;
  }[];
  readonly yTicks: readonly { readonly y: number; readonly label: string }[];
  readonly bands: readonly { readonly y: number; readonly height: number; readonly colour: string; readonly label: string }[];
  readonly lines: readonly { readonly series: number; readonly d: string; readonly points: number }[];
  /** The stretch of each line into an incomplete last period. */
  readonly incompleteLines: readonly { readonly series: number; readonly d: string }[];
  readonly bars: readonly {
    readonly series: number;
    readonly x: number;
    readonly y: number;
    readonly width: number;
    readonly height: number;
    readonly title: string;
    readonly incomplete: boolean;
  }[];
  /** The incomplete last period's stretch of the plot, shaded. */
  readonly incompleteSpan?: { readonly x: number; readonly width: number };
  /** At most ~600, the same x values in every drawing of the chart (only their positions differ). */
  readonly tips: readonly TipColumn[];
  /** The panel's values, for its text alternative. */
  readonly yMin: number;
  readonly yMax: number;
  readonly rows: number;
}

/** A y axis: its ticks, the domain they cover and the decimals their labels need (scales.ts). */
export type YDomain = ReturnType<typeof niceTicks>;

/** What every panel of a chart shares: the plot's box, the x axis and the series (chart-geometry.ts sets it). */
export interface ChartFrame {
  readonly chart: ChartData;
  readonly lang: Language;
  readonly plot: { readonly left: number; readonly top: number; readonly right: number; readonly bottom: number };
  /** A row's place on the x axis: its time, or its category's index. */
  readonly xValue: (row: Row) => number;
  readonly scaleX: (value: number) => number;
  readonly xTicks: PanelGeometry['xTicks'];
  /** The categories of a chart of categories, in order (none when x is time). */
  readonly categoryIndex: ReadonlyMap<string, number>;
  readonly seriesIndex: ReadonlyMap<string, number>;
  /** The data's step on the x axis (see `smallestStep`). */
  readonly step: number;
  readonly tickLabel: (tick: number, domain: YDomain) => string;
}

const round = (value: number) => Math.round(value * 10) / 10;

/** The panel `key`, holding `rows`, on the y axis `domain`. */
export function panelGeometry(frame: ChartFrame, key: string, rows: readonly Row[], domain: YDomain): PanelGeometry {
  const { chart, lang, plot, xValue, scaleX, categoryIndex, seriesIndex, step } = frame;
  const plotWidth = plot.right - plot.left;
  const gap = 1.5 * step;
  const incompleteX = chart.incomplete?.x;
  const scaleY = (value: number) => plot.bottom - ((value - domain.min) / (domain.max - domain.min)) * (plot.bottom - plot.top);
  const clamp = (value: number) => Math.min(domain.max, Math.max(domain.min, value));
  const bands = chart.bands
    .filter((band) => band.panel === key && band.to > domain.min && band.from < domain.max)
    .map((band) => ({
      y: scaleY(clamp(band.to)),
      height: scaleY(clamp(band.from)) - scaleY(clamp(band.to)),
      colour: band.color,
      label: labelOf(chart, band.label, lang).text,
    }));
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
        const path = linePath(
          complete.map((row) => ({ x: xValue(row), y: row.y })),
          gap,
          scaleX,
          scaleY,
          plot.left,
          plotWidth,
        );
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
    const slot = plotWidth / Math.max(categoryIndex.size, 1);
    const barWidth = (slot * 0.7) / seriesIndex.size;
    for (const row of rows) {
      const index = seriesIndex.get(row.series ?? '')!;
      const x = scaleX(categoryIndex.get(row.x)!) - (slot * 0.7) / 2 + index * barWidth;
      const [top, bottom] = [scaleY(Math.max(row.y, 0)), scaleY(Math.min(row.y, 0))];
      const title = `${row.series ? `${labelOf(chart, row.series, lang).text}, ` : ''}${xLabelOf(chart, row.x, lang).text}: ${formatNumber(row.y, lang)}`;
      bars.push({
        series: index,
        x: round(x),
        y: round(top),
        width: round(Math.max(barWidth - 1, 1)),
        height: round(bottom - top),
        title,
        incomplete: row.x === incompleteX,
      });
    }
  }
  const values = rows.map((row) => row.y);
  const range = extremes(values);
  const title = key ? labelOf(chart, key, lang) : { text: '' };
  const declared = chart.panels[key];
  const valueName = declared ? declared[lang] : yLabelOf(chart, key, lang);
  const saidAbove = (title.text || chart.title[lang]).trim().toLocaleLowerCase(lang) === valueName.trim().toLocaleLowerCase(lang);
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
  const incompletePosition = incompleteX === undefined ? undefined : chart.x.time ? timeOf(incompleteX) : categoryIndex.get(incompleteX);
  const half = chart.x.time ? (Number.isFinite(step) ? step / 2 : 0) : 0.5;
  const spanLeft = incompletePosition === undefined ? 0 : Math.max(plot.left, scaleX(incompletePosition - half));
  return {
    key,
    title: title.text,
    ...(title.lang ? { titleLang: title.lang } : {}),
    valueName,
    ...(saidAbove ? {} : { axisTitle: valueName }),
    xTicks: frame.xTicks,
    yTicks: domain.ticks.map((tick) => ({ y: round(scaleY(tick)), label: frame.tickLabel(tick, domain) })),
    bands: bands.map((band) => ({ ...band, y: round(band.y), height: round(band.height) })),
    lines,
    incompleteLines,
    bars,
    ...(incompletePosition === undefined ? {} : { incompleteSpan: { x: round(spanLeft), width: round(Math.max(plot.right - spanLeft, 4)) } }),
    tips,
    yMin: range?.min ?? 0,
    yMax: range?.max ?? 0,
    rows: rows.length,
  };
}
