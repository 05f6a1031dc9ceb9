import type { BoundingBox } from '../../vocabulary/param.ts';

/**
 * Whether shapes (rings of [lon, lat]; a one-position ring is a point) intersect a bounding box.
 * Planar geometry in degrees, as EPSG:4326 boxes are meant at city scale.
 */

type Position = readonly [number, number];
type Ring = readonly Position[];

const inside = (box: BoundingBox, [lon, lat]: Position) => lon >= box.minLon && lon <= box.maxLon && lat >= box.minLat && lat <= box.maxLat;

/** Even-odd rule; a point on an edge may go either way, and edge crossings catch that case. */
function ringContains(ring: Ring, [x, y]: Position): boolean {
  let contains = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!,
      [xj, yj] = ring[j]!;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) contains = !contains;
  }
  return contains;
}

const cross = (o: Position, a: Position, b: Position) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);

function segmentsMeet(p1: Position, p2: Position, q1: Position, q2: Position): boolean {
  const d1 = cross(q1, q2, p1),
    d2 = cross(q1, q2, p2),
    d3 = cross(p1, p2, q1),
    d4 = cross(p1, p2, q2);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
  const onSegment = (a: Position, b: Position, c: Position) =>
    Math.min(a[0], b[0]) <= c[0] && c[0] <= Math.max(a[0], b[0]) && Math.min(a[1], b[1]) <= c[1] && c[1] <= Math.max(a[1], b[1]);
  return (
    (d1 === 0 && onSegment(q1, q2, p1)) || (d2 === 0 && onSegment(q1, q2, p2)) || (d3 === 0 && onSegment(p1, p2, q1)) || (d4 === 0 && onSegment(p1, p2, q2))
  );
}

export function ringIntersectsBox(ring: Ring, box: BoundingBox): boolean {
  if (ring.some((p) => inside(box, p))) return true;
  if (ring.length < 3) return false;
  const corners: Position[] = [
    [box.minLon, box.minLat],
    [box.maxLon, box.minLat],
    [box.maxLon, box.maxLat],
    [box.minLon, box.maxLat],
  ];
  if (corners.some((c) => ringContains(ring, c))) return true;
  for (let i = 0; i + 1 < ring.length; i++) {
    for (let k = 0; k < 4; k++) if (segmentsMeet(ring[i]!, ring[i + 1]!, corners[k]!, corners[(k + 1) % 4]!)) return true;
  }
  return false;
}

export const shapesIntersectBox = (shapes: readonly Ring[], box: BoundingBox) => shapes.some((ring) => ringIntersectsBox(ring, box));
