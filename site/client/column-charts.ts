import type { ColumnStatistics, TableStatistics } from '../../core/column-statistics.ts';
import { fill } from './texts.ts';

/**
 * A table's column statistics (downloads/<data set>/<table>.stats.json, written by odsnap build)
 * as a small chart above each column of its page: a histogram for numbers and times, the top
 * values for the rest, and the column's nulls and distinct values. Trees built before the file
 * existed have none: the page then shows no chart. The bars are plain boxes sized in CSS: a
 * chart library would bring more code than these few lines it saves.
 */

// The build's own types, imported for their shape alone: zod stays out of the page's script.
export type { ColumnStatistics, TableStatistics } from '../../core/column-statistics.ts';

export interface ChartTexts {
  /** `{nulls}`, `{distinct}`: the line under a chart. */
  readonly summary: string;
  /** `{from}`, `{to}`, `{count}`: a histogram bar's title. */
  readonly bin: string;
  /** `{value}`, `{count}`: a top value's title. */
  readonly topValue: string;
  readonly nullValue: string;
}

/** The statistics at `href`, or undefined when the tree has none (an older tree) or they cannot be read. */
export async function readStatistics(href: string): Promise<TableStatistics | undefined> {
  try {
    const response = await fetch(href);
    if (!response.ok) return undefined;
    const statistics = (await response.json()) as TableStatistics;
    return statistics.format === 1 && Array.isArray(statistics.columns) ? statistics : undefined;
  } catch {
    return undefined;
  }
}

/** How many top values a chart shows: the rest of the top is in the facets. */
const TOP_SHOWN = 3;

/** The chart of one column, for its header; `format` writes counts in the page's language. */
export function columnChart(column: ColumnStatistics, texts: ChartTexts, format: (n: number) => string): HTMLElement {
  const chart = document.createElement('div');
  chart.className = 'column-chart';
  chart.dataset.columnChart = column.histogram?.length ? 'histogram' : 'top';
  if (column.histogram?.length) {
    const highest = Math.max(...column.histogram.map((bin) => bin.count), 1);
    const bars = document.createElement('div');
    bars.className = 'histogram';
    for (const bin of column.histogram) {
      const bar = document.createElement('span');
      bar.style.height = `${Math.max(bin.count ? 2 : 0, (100 * bin.count) / highest)}%`;
      bar.title = fill(texts.bin, { from: bin.from, to: bin.to, count: format(bin.count) });
      bars.append(bar);
    }
    chart.append(bars);
  } else if (column.top?.length) {
    const highest = Math.max(...column.top.map((top) => top.count), 1);
    const list = document.createElement('ol');
    list.className = 'top-values';
    for (const top of column.top.slice(0, TOP_SHOWN)) {
      const item = document.createElement('li');
      item.style.setProperty('--share', `${(100 * top.count) / highest}%`);
      item.textContent = top.value ?? texts.nullValue;
      item.title = fill(texts.topValue, { value: top.value ?? texts.nullValue, count: format(top.count) });
      list.append(item);
    }
    chart.append(list);
  }
  const summary = document.createElement('p');
  summary.className = 'column-summary';
  summary.textContent = fill(texts.summary, { nulls: format(column.nulls), distinct: `${column.distinctIsApproximate ? '≈' : ''}${format(column.distinct)}` });
  chart.append(summary);
  return chart;
}
