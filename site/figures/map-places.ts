import type { Language } from '../../core/text.ts';
import type { MapValue } from '../../datasets/vocabulary/figure.ts';
import { numberFormat } from './scales.ts';

/**
 * What a map says of a place beyond its name, in the page's language: the figure of a layer with
 * a value in full ("13,404 PLN/m² · units sold: 14", for tooltips, popups and the table) and as a
 * short label drawn on its circle ("13.4K").
 */

export function placeFigure(value: MapValue | undefined, place: { readonly value?: number; readonly count?: number }, lang: Language): string {
  if (!value || place.value === undefined) return '';
  const number = numberFormat(lang, { maximumFractionDigits: Math.abs(place.value) < 100 ? 1 : 0 }).format(place.value);
  const count = value.count && place.count !== undefined ? ` · ${value.count[lang]}: ${numberFormat(lang).format(place.count)}` : '';
  return `${number} ${value.unit[lang]}${count}`;
}

/**
 * The short figure on a place's circle, as its lines: one ("13.8k"), or two where the compact
 * suffix is a word ("13,8" over "tys."), which on one line would be wider than the circle.
 */
export function placeBadge(value: number, lang: Language): readonly string[] {
  const format = numberFormat(lang, { notation: 'compact', maximumFractionDigits: value >= 1000 && value < 100_000 ? 1 : 0 });
  const parts = format.formatToParts(value);
  const suffix = parts.findIndex((part) => part.type === 'compact');
  if (suffix < 0 || parts[suffix]!.value.length < 2) return [format.format(value)];
  const join = (some: readonly Intl.NumberFormatPart[]) =>
    some
      .map((part) => part.value)
      .join('')
      .trim();
  return [join(parts.slice(0, suffix)), join(parts.slice(suffix))];
}

/**
 * A circle with a figure on the SVG map, in units of its 800-wide drawing: its radius, room for
 * the figure's lines at 10 units, and their baselines from its centre, the block of them centred.
 */
export const VALUE_RADIUS = 18;
export const badgeBaselines = (lines: number): readonly number[] => (lines > 1 ? [-1.2, 8.3] : [3.6]);

/** A place's name with its figure, if it has one: "Mokotów: 18,142 PLN/m² · units sold: 7". */
export const placeLabel = (name: string, figure: string) => (figure ? `${name}: ${figure}` : name);
