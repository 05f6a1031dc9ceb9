import type { Language } from '../../core/text.ts';
import type { MapValue } from '../../datasets/vocabulary/figure.ts';
import { locale } from './scales.ts';

/**
 * What a map says of a place beyond its name, in the page's language: the figure of a layer with
 * a value in full ("13,404 PLN/m² · units sold: 14", for tooltips, popups and the table) and as a
 * short label drawn on its circle ("13.4K").
 */

export function placeFigure(value: MapValue | undefined, place: { readonly value?: number; readonly count?: number }, lang: Language): string {
  if (!value || place.value === undefined) return '';
  const number = new Intl.NumberFormat(locale(lang), { maximumFractionDigits: Math.abs(place.value) < 100 ? 1 : 0 }).format(place.value);
  const count = value.count && place.count !== undefined ? ` · ${value.count[lang]}: ${new Intl.NumberFormat(locale(lang)).format(place.count)}` : '';
  return `${number} ${value.unit[lang]}${count}`;
}

export const placeBadge = (value: number, lang: Language) =>
  new Intl.NumberFormat(locale(lang), { notation: 'compact', maximumFractionDigits: value >= 1000 && value < 100_000 ? 1 : 0 }).format(value);

/** A place's name with its figure, if it has one: "Mokotów: 18,142 PLN/m² · units sold: 7". */
export const placeLabel = (name: string, figure: string) => (figure ? `${name}: ${figure}` : name);
