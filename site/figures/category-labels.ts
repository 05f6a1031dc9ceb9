/**
 * The labels of a chart's categories under its x axis, laid out so that none overlaps another or
 * leaves the drawing. SVG text does not wrap, and the build has no font to measure with: widths are
 * estimated from DejaVu Sans, the widest of the usual sans serifs (and Linux's fallback), so that a
 * label that fits in it fits in any. A label takes its category's slot, its words wrapped on up to
 * three lines; when a word is wider still, labels alternate between two rows, each taking two
 * slots; failing that, only every second (third, …) category is labelled. Every category stays
 * named by its bar's title, the tooltips and the chart's table.
 */

/** Between two lines of a label, in drawing units (for text 12 units high). */
export const LINE_HEIGHT = 14;
/** Between the last line of a row of labels and the next row. */
export const ROW_GAP = 4;
/** The least space between two labels on a row. */
const GAP = 8;
const MAX_LINES = 3;
const MAX_ROWS = 2;

/** Advance widths of DejaVu Sans, in ems; letters with diacritics take their base letter's. */
const EM: Readonly<Record<string, number>> = {
  ' ': 0.318,
  a: 0.613,
  b: 0.635,
  c: 0.55,
  d: 0.635,
  e: 0.615,
  f: 0.352,
  g: 0.635,
  h: 0.634,
  i: 0.278,
  j: 0.278,
  k: 0.579,
  l: 0.278,
  ł: 0.32,
  m: 0.974,
  n: 0.634,
  o: 0.612,
  p: 0.635,
  q: 0.635,
  r: 0.411,
  s: 0.521,
  t: 0.392,
  u: 0.634,
  v: 0.592,
  w: 0.818,
  x: 0.592,
  y: 0.592,
  z: 0.525,
  I: 0.295,
  J: 0.295,
  L: 0.557,
  Ł: 0.6,
  M: 0.863,
  W: 0.989,
  '-': 0.361,
  '.': 0.318,
  ',': 0.318,
  ':': 0.337,
  '/': 0.337,
  '(': 0.39,
  ')': 0.39,
};

/** Estimated width of a text `size` units high, a little over DejaVu Sans's. */
export function textWidth(text: string, size = 12): number {
  let ems = 0;
  for (const char of text) {
    const base = char.normalize('NFD')[0] ?? char;
    ems += EM[char] ?? EM[base] ?? (/\d/.test(base) ? 0.636 : /\p{Lu}/u.test(base) ? 0.79 : 0.65);
  }
  return ems * size * 1.03;
}

/** A label's words on lines at most `room` wide, breaking at spaces and after hyphens; undefined when a word is wider. */
export function wrapLabel(text: string, room: number): string[] | undefined {
  // A hyphenated word's parts join with nothing, words with a space.
  const pieces = text
    .split(/\s+/)
    .filter(Boolean)
    .flatMap((word) => word.split(/(?<=-)/).map((part, i, parts) => ({ part, glue: i < parts.length - 1 ? '' : ' ' })));
  const lines: string[] = [];
  let line = '';
  let glue = '';
  for (const { part, glue: next } of pieces) {
    if (textWidth(part) > room) return undefined;
    const joined = line + glue + part;
    if (line && textWidth(joined) > room) {
      lines.push(line);
      line = part;
    } else line = line ? joined : part;
    glue = next;
  }
  return line ? [...lines, line] : lines;
}

export interface CategoryLabel {
  /** The category's index. */
  readonly index: number;
  /** The centre of its text: its category's, or moved in from the drawing's edge. */
  readonly x: number;
  readonly lines: readonly string[];
  /** 0, or 1 for labels on the second row. */
  readonly row: number;
}

export interface CategoryLayout {
  readonly labels: readonly CategoryLabel[];
  /** The height of each row: the most lines of its labels. */
  readonly rowLines: readonly number[];
}

/**
 * Labels `texts`, the categories at `centres` (each `slot` wide), inside a drawing `width` wide:
 * every category if any layout allows it, else as many as fit.
 */
export function layOutCategoryLabels(texts: readonly string[], centres: readonly number[], slot: number, width: number): CategoryLayout {
  for (let every = 1; every <= texts.length; every++) {
    const shown = texts.flatMap((text, index) => (index % every === 0 ? [{ text, index }] : []));
    for (let rows = 1; rows <= Math.min(MAX_ROWS, shown.length); rows++) {
      const room = slot * every * rows - GAP;
      const wrapped = shown.map(({ text }) => wrapLabel(text, room));
      if (wrapped.some((lines) => !lines || lines.length > MAX_LINES)) continue;
      const labels = shown.map(({ index }, k) => {
        const lines = wrapped[k]!;
        const half = Math.max(...lines.map((line) => textWidth(line))) / 2;
        // A label at the drawing's edge moves in, so that it is read whole.
        const x = Math.min(Math.max(centres[index]!, half + 1), width - half - 1);
        return { index, x, lines, row: k % rows, half };
      });
      const apart = labels.every((label, k) => {
        const previous = labels[k - rows];
        return !previous || previous.x + previous.half + GAP / 2 <= label.x - label.half;
      });
      if (apart)
        return {
          labels: labels.map(({ half: _, ...label }) => label),
          rowLines: Array.from({ length: rows }, (_, row) => Math.max(...labels.filter((label) => label.row === row).map((label) => label.lines.length))),
        };
    }
  }
  return { labels: [], rowLines: [1] };
}
