import type { ChartData } from '../../datasets/vocabulary/figure.ts';
import type { Language } from '../../core/text.ts';
import { uiOf } from '../i18n/ui.ts';
import { dateFormat, timeOf } from './scales.ts';

/**
 * The words of a chart in the page's language: values named where the declaration names them
 * (`labels`), shown as given otherwise, and periods of time written out.
 */

/** A text shown on the page: translated, or as the data gives it, in the language `lang` names. */
export interface Label {
  readonly text: string;
  readonly lang?: Language;
}

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

/**
 * What a panel's values are, as its y axis is titled: the declared label, its `{unit}` the unit a
 * panel named by the data carries in parentheses (`PM10 (µg/m³)`: `Weekly mean, {unit}` reads
 * `Weekly mean, µg/m³`). A panel with no unit there drops the placeholder with what joins it.
 */
export function yLabelOf(chart: Pick<ChartData, 'y'>, panel: string, lang: Language): string {
  const label = chart.y.label[lang];
  const unit = /\(([^()]+)\)$/.exec(panel)?.[1];
  return unit ? label.replace('{unit}', unit) : label.replace(/[\s,]*\(?\{unit\}\)?/, '');
}

/** An x value as a reader names it: a period of time in the page's language, or a category's label. */
export function xLabelOf(chart: ChartData, x: string, lang: Language): Label {
  if (!chart.x.time) return labelOf(chart, x, lang);
  const time = timeOf(x);
  const period = chart.x.period ?? 'day';
  const options: Intl.DateTimeFormatOptions =
    period === 'month'
      ? { month: 'long', year: 'numeric' }
      : period === 'year'
        ? { year: 'numeric' }
        : x.includes('T')
          ? { dateStyle: 'medium', timeStyle: 'short' }
          : { dateStyle: 'medium' };
  const formatted = dateFormat(lang, { ...options, timeZone: 'UTC' }).format(time);
  return { text: period === 'week' ? uiOf(lang).readableCharts.weekOf(formatted) : formatted };
}

/** A day (YYYY-MM-DD) written out in the page's language. */
export const dayLabel = (day: string, lang: Language) => dateFormat(lang, { dateStyle: 'long', timeZone: 'UTC' }).format(timeOf(day));
