import type { ChartData } from '../../datasets/vocabulary/figure.ts';
import type { Language } from '../../core/text.ts';
import { uiOf } from '../i18n/ui.ts';
import { csvField } from '../client/sql-result.ts';
import { labelOf, type Label, yLabelOf } from './chart-labels.ts';

/**
 * The rows behind a chart as one table, the same on the page and in its CSV file: a row per x value
 * and a column per panel when the panels are measures of the same things (no series), else a row
 * per value. Numbers stay numbers here; the page formats them, the CSV writes them plainly.
 */

export interface TableCell {
  readonly text: string;
  /** A day or an instant (ISO 8601), which the page writes as a person reads it and the CSV as it is. */
  readonly time?: boolean;
  readonly lang?: Language;
  readonly value?: number;
}

export interface ChartTable {
  readonly header: readonly Label[];
  readonly rows: readonly { readonly incomplete: boolean; readonly cells: readonly TableCell[] }[];
}

export function chartTable(chart: ChartData, lang: Language): ChartTable {
  const ui = uiOf(lang);
  const panels = [...new Set(chart.rows.map((row) => row.panel ?? ''))];
  const hasSeries = chart.rows.some((row) => row.series);
  const xCell = (x: string): TableCell => (chart.x.time ? { text: x, time: true } : labelCell(labelOf(chart, x, lang)));
  const incompleteNote = chart.incomplete ? `${ui.readableCharts.incompleteTip}: ${chart.incomplete.through}` : '';
  const noteColumn = chart.incomplete ? [{ text: ui.readableCharts.note }] : [];
  const noteCell = (x: string): TableCell[] => (chart.incomplete ? [{ text: x === chart.incomplete.x ? incompleteNote : '' }] : []);
  if (panels.length > 1 && !hasSeries) {
    const xs = [...new Set(chart.rows.map((row) => row.x))];
    if (chart.x.time) xs.sort();
    const values = new Map(chart.rows.map((row) => [`${row.x}\n${row.panel}`, row.y]));
    return {
      header: [{ text: chart.x.label[lang] }, ...panels.map((panel) => labelOf(chart, panel, lang)), ...noteColumn],
      rows: xs.map((x) => ({
        incomplete: x === chart.incomplete?.x,
        cells: [xCell(x), ...panels.map((panel) => numberCell(values.get(`${x}\n${panel}`))), ...noteCell(x)],
      })),
    };
  }
  const hasPanels = chart.rows.some((row) => row.panel);
  const header: Label[] = [
    ...(hasPanels ? [{ text: ui.chart.panel }] : []),
    ...(hasSeries ? [{ text: ui.chart.series }] : []),
    { text: chart.x.label[lang] },
    { text: hasPanels ? ui.readableCharts.value : yLabelOf(chart, '', lang) },
    ...noteColumn,
  ];
  return {
    header,
    rows: chart.rows.map((row) => ({
      incomplete: row.x === chart.incomplete?.x,
      cells: [
        ...(hasPanels ? [labelCell(labelOf(chart, row.panel ?? '', lang))] : []),
        ...(hasSeries ? [labelCell(labelOf(chart, row.series ?? '', lang))] : []),
        xCell(row.x),
        numberCell(row.y),
        ...noteCell(row.x),
      ],
    })),
  };
}

/** The table as CSV (RFC 4180): the header's and cells' texts, numbers as they are, with a dot. */
export function chartCsv(table: ChartTable): string {
  const lines = [
    table.header.map((label) => csvField(label.text)),
    ...table.rows.map((row) => row.cells.map((cell) => csvField(cell.value === undefined ? cell.text : String(cell.value)))),
  ];
  return lines.map((line) => line.join(',')).join('\r\n') + '\r\n';
}

/** The file name of a chart's CSV, beside the data-set page. */
export const chartCsvName = (chart: Pick<ChartData, 'name'>) => `${chart.name}.csv`;

const labelCell = (label: Label): TableCell => ({ text: label.text, ...(label.lang ? { lang: label.lang } : {}) });
const numberCell = (value: number | undefined): TableCell => (value === undefined ? { text: '' } : { text: '', value });
