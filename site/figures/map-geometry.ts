import type { MapLayerData } from '../../datasets/vocabulary/figure.ts';
import type { Language, Text } from '../../core/text.ts';
import { formatDegrees, niceTicks } from './scales.ts';
import { extremes } from './extremes.ts';

/**
 * Places of every data set's map layers projected for SVG, with no tile server: equirectangular,
 * longitudes scaled by the cosine of the middle latitude so distances look right at city scale.
 * A graticule and a scale bar stand in for the base map.
 */

export const LAYER_COLOURS = ['#0b5cad', '#c2410c', '#15803d', '#7e22ce', '#b45309', '#be185d'];
export const LAYER_SHAPES = ['circle', 'square', 'triangle', 'diamond'] as const;
export type Shape = (typeof LAYER_SHAPES)[number];

export interface MapLayerInput {
  readonly dataset: string;
  readonly datasetTitle: Text;
  readonly layer: MapLayerData;
}

export interface ProjectedLayer extends MapLayerInput {
  readonly colour: string;
  readonly shape: Shape;
  readonly points: readonly ProjectedPlace[];
}

export interface ProjectedPlace {
  readonly x: number;
  readonly y: number;
  readonly name: string;
  readonly lon: number;
  readonly lat: number;
  /** A layer with a value's figure for the place (see MapLayer.value), and the records it sums up. */
  readonly value?: number;
  readonly count?: number;
}

export interface MapGeometry {
  readonly width: number;
  readonly height: number;
  readonly layers: readonly ProjectedLayer[];
  readonly meridians: readonly { readonly x: number; readonly label: string }[];
  readonly parallels: readonly { readonly y: number; readonly label: string }[];
  readonly scaleBar: { readonly x: number; readonly y: number; readonly width: number; readonly km: number };
}

const EARTH_KM_PER_DEGREE = 111.32;
const WIDTH = 800;
const MIN_HEIGHT = 360;
const MAX_HEIGHT = 640;

export function mapGeometry(layers: readonly MapLayerInput[], lang: Language): MapGeometry | undefined {
  const places = layers.flatMap((entry) => entry.layer.places);
  if (!places.length) return undefined;
  const lon = extremes(places.map((place) => place.lon))!;
  const lat = extremes(places.map((place) => place.lat))!;
  const [midLon, midLat] = [(lon.min + lon.max) / 2, (lat.min + lat.max) / 2];
  const cos = Math.cos((midLat * Math.PI) / 180);
  // The places' extent with a margin (at least ~1 km), in degrees of latitude.
  const spanX = Math.max((lon.max - lon.min) * cos, 0.01) * 1.16;
  const spanY = Math.max(lat.max - lat.min, 0.01) * 1.16;
  const height = Math.round(Math.min(Math.max((WIDTH * spanY) / spanX, MIN_HEIGHT), MAX_HEIGHT));
  const scale = Math.min(WIDTH / spanX, height / spanY);
  const project = (lon: number, lat: number) => ({ x: round(WIDTH / 2 + (lon - midLon) * cos * scale), y: round(height / 2 - (lat - midLat) * scale) });
  const [west, east] = [midLon - WIDTH / 2 / (cos * scale), midLon + WIDTH / 2 / (cos * scale)];
  const [south, top] = [midLat - height / 2 / scale, midLat + height / 2 / scale];

  const projected = layers.map(
    (entry, i): ProjectedLayer => ({
      ...entry,
      colour: LAYER_COLOURS[i % LAYER_COLOURS.length]!,
      shape: LAYER_SHAPES[i % LAYER_SHAPES.length]!,
      points: entry.layer.places.map((place) => ({
        ...project(place.lon, place.lat),
        name: place.name,
        lon: place.lon,
        lat: place.lat,
        value: place.value,
        count: place.count,
      })),
    }),
  );
  const lines = (from: number, to: number, count: number, positive: string, negative: string) => {
    const { ticks } = niceTicks(from, to, count);
    const digits = ticks.length > 1 ? Math.max(0, -Math.floor(Math.log10(ticks[1]! - ticks[0]!) + 1e-9)) : 2;
    return ticks
      .filter((value) => value > from && value < to)
      .map((value) => ({ value, label: `${formatDegrees(Math.abs(value), lang, digits)} ${value >= 0 ? positive : negative}` }));
  };
  const meridians = lines(west, east, 8, 'E', 'W').map((line) => ({ x: project(line.value, top).x, label: line.label }));
  const parallels = lines(south, top, 6, 'N', 'S').map((line) => ({ y: project(west, line.value).y, label: line.label }));
  // The longest round distance (1, 2 or 5 × 10ⁿ km) within a quarter of the width.
  const widthKm = (east - west) * cos * EARTH_KM_PER_DEGREE;
  const power = 10 ** Math.floor(Math.log10(widthKm / 4));
  const km = [5, 2, 1].map((m) => m * power).find((candidate) => candidate <= widthKm / 4)!;
  return { width: WIDTH, height, layers: projected, meridians, parallels, scaleBar: { x: 16, y: height - 18, width: round((km / widthKm) * WIDTH), km } };
}

/** SVG path of a marker of `shape` at (x, y) of about `size` across, for shapes other than the circle. */
export function markerPath(shape: Shape, x: number, y: number, size: number): string {
  const h = size / 2;
  if (shape === 'square') return `M${round(x - h)} ${round(y - h)}h${size}v${size}h${-size}z`;
  if (shape === 'triangle') return `M${x} ${round(y - h * 1.15)}l${round(h * 1.15)} ${round(h * 2)}h${round(-h * 2.3)}z`;
  return `M${x} ${round(y - h * 1.3)}l${round(h * 1.3)} ${round(h * 1.3)}l${round(-h * 1.3)} ${round(h * 1.3)}l${round(-h * 1.3)} ${round(-h * 1.3)}z`;
}

const round = (value: number) => Math.round(value * 10) / 10;
