import { groupBy, type Row } from './chart-rows.ts';

/**
 * Lines as SVG paths, thinned so that even the largest chart stays a light page: at most ~600
 * points per line, and the tooltips' columns thinned by the same buckets across the plot.
 */

/** At most this many points per line: pairs of (min, max) per bucket. */
const MAX_POINTS = 600;

/** The bucket of a position across the plot (0 at its left, 1 at its right) when thinning to `buckets`. */
const bucketOf = (position: number, buckets: number) => Math.max(0, Math.min(buckets - 1, Math.floor(position * buckets)));

/**
 * A line as one path: a new subpath after a gap in x wider than `gap` (a lone point becomes a dot,
 * drawn by the round line cap), thinned to the lowest and highest point of each of ~300 columns
 * of the plot (those the tooltips are thinned by, see `thinColumns`).
 * Coordinates are in tenths, relative after each subpath's start, to keep the markup small.
 */
export function linePath(
  points: readonly { x: number; y: number }[],
  gap: number,
  scaleX: (x: number) => number,
  scaleY: (y: number) => number,
  plotLeft: number,
  plotWidth: number,
) {
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
export function thinColumns(
  columns: readonly (readonly [string, Row[]])[],
  position: (row: Row) => number,
  incompleteX: string | undefined,
): (readonly [string, Row[]])[] {
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
