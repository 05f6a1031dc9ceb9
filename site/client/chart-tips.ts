/// <reference path="./env.d.ts" />
import type { TipColumn } from '../figures/chart-panel.ts';

/** The charts whose values show, each with what hides them: a tap elsewhere hides them (one listener for every chart of the page). */
const shown = new Map<SVGSVGElement, () => void>();
let tapsWatched = false;

function hideOnTapElsewhere(): void {
  if (tapsWatched) return;
  tapsWatched = true;
  document.addEventListener('pointerdown', (event) => {
    for (const [svg, hide] of shown) if (!svg.contains(event.target as Node)) hide();
  });
}

/** Each chart's tooltip texts, parsed once for its two drawings: per panel, [label, series, value, series, value, …] per column. */
const textsOf = new WeakMap<Element, (string | number)[][][]>();

function tipTexts(figure: Element | null): (string | number)[][][] {
  if (!figure) return [];
  let texts = textsOf.get(figure);
  if (!texts) {
    texts = JSON.parse(figure.querySelector('script[data-chart-tips]')?.textContent || '[]') as (string | number)[][][];
    textsOf.set(figure, texts);
  }
  return texts;
}

/**
 * Values on a chart's panel (an `svg.plot` with `data-tip-at`, see components/Chart.astro): the column
 * nearest the pointer on hover and on tap, or the one the arrow keys move to once the panel has the
 * focus (Home and End jump to the ends, Escape hides). A rule and dots mark the column; the values
 * show in the panel's tooltip, a live region, so a screen reader reads them too.
 */
export function mountChartTips(svg: SVGSVGElement): void {
  // Packed to keep the page light: the labels and values once per chart (in its figure), and
  // here, per column, [x, y of each point, …] in this drawing.
  const positions = JSON.parse(svg.dataset.tipAt ?? '[]') as number[][];
  const texts = tipTexts(svg.closest('figure'))[Number(svg.dataset.panel)] ?? [];
  const columns: TipColumn[] = positions.flatMap(([x, ...ys], i) => {
    const [label, ...flat] = texts[i] ?? [];
    if (x === undefined || label === undefined) return [];
    return [
      {
        x,
        label: String(label),
        points: ys.map((y, j) => ({ series: flat[j * 2] as number, y, value: String(flat[j * 2 + 1]) })),
      },
    ];
  });
  const tip = svg.parentElement?.querySelector<HTMLElement>('.chart-tip');
  const marks = svg.querySelector<SVGGElement>('g.tip-marks');
  if (!columns.length || !tip || !marks) return;
  const names = JSON.parse(svg.closest<HTMLElement>('[data-series-names]')?.dataset.seriesNames ?? '[]') as string[];
  const unit = svg.dataset.unit ?? '';
  const box = svg.viewBox.baseVal;
  let current = -1;

  const show = (index: number) => {
    const next = Math.max(0, Math.min(columns.length - 1, index));
    // The pointer moved within the column shown: nothing to draw again.
    if (next === current && !tip.hidden) return;
    current = next;
    shown.set(svg, hide);
    const column = columns[current]!;
    const lines = column.points.map((point) => `${names[point.series] || unit}: ${point.value}`);
    tip.textContent = [column.label, ...(column.points.some((point) => names[point.series]) ? [unit] : []), ...lines].join('\n');
    tip.hidden = false;
    const ns = 'http://www.w3.org/2000/svg';
    const rule = document.createElementNS(ns, 'line');
    rule.setAttribute('x1', String(column.x));
    rule.setAttribute('x2', String(column.x));
    rule.setAttribute('y1', String(box.y));
    rule.setAttribute('y2', String(box.y + box.height));
    const dots = column.points.map((point) => {
      const dot = document.createElementNS(ns, 'circle');
      dot.setAttribute('cx', String(column.x));
      dot.setAttribute('cy', String(point.y));
      dot.setAttribute('r', '4');
      return dot;
    });
    marks.replaceChildren(rule, ...dots);
    // Beside the column, kept inside the panel.
    const scale = svg.getBoundingClientRect().width / box.width;
    const panelWidth = svg.parentElement!.clientWidth;
    const left = column.x * scale + svg.getBoundingClientRect().left - svg.parentElement!.getBoundingClientRect().left;
    const width = tip.offsetWidth;
    tip.style.left = `${Math.max(0, Math.min(panelWidth - width, left > panelWidth / 2 ? left - width - 12 : left + 12))}px`;
    tip.style.top = `${svg.getBoundingClientRect().top - svg.parentElement!.getBoundingClientRect().top + 8}px`;
  };
  const hide = () => {
    tip.hidden = true;
    marks.replaceChildren();
    shown.delete(svg);
  };
  const nearest = (event: PointerEvent) => {
    const rect = svg.getBoundingClientRect();
    const x = box.x + ((event.clientX - rect.left) / rect.width) * box.width;
    let best = 0;
    for (let i = 1; i < columns.length; i++) if (Math.abs(columns[i]!.x - x) < Math.abs(columns[best]!.x - x)) best = i;
    return best;
  };

  svg.addEventListener('pointermove', (event) => show(nearest(event)));
  // A tap shows the values and keeps them until the next tap elsewhere.
  svg.addEventListener('pointerdown', (event) => show(nearest(event)));
  svg.addEventListener('pointerleave', (event) => {
    if (event.pointerType === 'mouse' && document.activeElement !== svg) hide();
  });
  hideOnTapElsewhere();
  svg.addEventListener('focus', () => show(current < 0 ? columns.length - 1 : current));
  svg.addEventListener('blur', hide);
  svg.addEventListener('keydown', (event) => {
    const moves: Record<string, number> = {
      ArrowLeft: current - 1,
      ArrowRight: current + 1,
      ArrowDown: current - 1,
      ArrowUp: current + 1,
      Home: 0,
      End: columns.length - 1,
    };
    if (event.key === 'Escape') hide();
    else if (event.key in moves) show(moves[event.key]!);
    else return;
    event.preventDefault();
  });
}
