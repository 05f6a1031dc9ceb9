import proj4 from 'proj4';

/**
 * Geometry as upstreams write it, read as outlines in WGS 84 longitude and latitude (what the
 * spec's `bbox` is in): GeoJSON objects, WKT and EWKT text, GML 2 and 3.2 text, each in the
 * reference system it names, converted with proj4. An outline is a polygon's outer ring, a line,
 * or a point, as [lon, lat, lon, lat, …]. A reference system odsnap does not know is reported,
 * never guessed.
 *
 * Axis order follows each form's convention: GeoJSON and WKT write easting (longitude) first
 * whatever the system; GML follows the system's own axis order where its srsName is a URN or an
 * OGC URI (`urn:ogc:def:crs:EPSG::4326` is latitude first, `…::2180` northing first), and
 * easting first for the older `EPSG:4326` and `…/epsg.xml#4326` names, as WFS servers read them.
 */

export type Outline = number[];

export type GeometryRead =
  | { readonly type: 'outlines'; readonly outlines: Outline[] }
  /** It names, or its coordinates imply, a reference system odsnap cannot convert. */
  | { readonly type: 'unknown-crs'; readonly crs: string };

interface System {
  readonly proj: string;
  /** Whether the system's own axis order is northing (latitude) first. */
  readonly northingFirst: boolean;
}

const PL_2000 = (zone: number, lon: number) => `+proj=tmerc +lat_0=0 +lon_0=${lon} +k=0.999923 +x_0=${zone}500000 +y_0=0 +ellps=GRS80 +units=m +no_defs`;

/** The systems an upstream in the field plausibly writes, by EPSG code. */
const SYSTEMS: Readonly<Record<number, System>> = {
  4326: { proj: 'EPSG:4326', northingFirst: true },
  4258: { proj: '+proj=longlat +ellps=GRS80 +no_defs', northingFirst: true },
  3857: { proj: 'EPSG:3857', northingFirst: false },
  900913: { proj: 'EPSG:3857', northingFirst: false },
  2180: { proj: '+proj=tmerc +lat_0=0 +lon_0=19 +k=0.9993 +x_0=500000 +y_0=-5300000 +ellps=GRS80 +units=m +no_defs', northingFirst: true },
  2176: { proj: PL_2000(5, 15), northingFirst: true },
  2177: { proj: PL_2000(6, 18), northingFirst: true },
  2178: { proj: PL_2000(7, 21), northingFirst: true },
  2179: { proj: PL_2000(8, 24), northingFirst: true },
  32633: { proj: '+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs', northingFirst: false },
  32634: { proj: '+proj=utm +zone=34 +datum=WGS84 +units=m +no_defs', northingFirst: false },
  25833: { proj: '+proj=utm +zone=33 +ellps=GRS80 +units=m +no_defs', northingFirst: false },
  25834: { proj: '+proj=utm +zone=34 +ellps=GRS80 +units=m +no_defs', northingFirst: false },
};

/** A system's name as GeoJSON, WKT and GML write it: its EPSG code, and whether the name asks for the system's own axis order. */
function systemOf(name: string): { code: number; ownAxes: boolean } | undefined {
  const text = name.trim();
  if (/^(urn:ogc:def:crs:OGC:(1\.3|):?CRS84|http:\/\/www\.opengis\.net\/def\/crs\/OGC\/1\.3\/CRS84)$/i.test(text)) return { code: 4326, ownAxes: false };
  const uri = /^(?:urn:ogc:def:crs:EPSG:[\d.]*:|https?:\/\/www\.opengis\.net\/def\/crs\/EPSG\/\d+\/)(\d+)$/i.exec(text);
  if (uri) return { code: Number(uri[1]), ownAxes: true };
  const short = /^(?:EPSG:|https?:\/\/www\.opengis\.net\/gml\/srs\/epsg\.xml#)(\d+)$/i.exec(text);
  return short ? { code: Number(short[1]), ownAxes: false } : undefined;
}

/** Outlines in the named system, coordinates in the order written, as WGS 84 lon/lat; undefined for a system odsnap does not know. */
function toWgs84(outlines: Outline[], code: number, northingFirst: boolean): Outline[] | undefined {
  const system = SYSTEMS[code];
  if (!system) return undefined;
  const convert = code === 4326 ? undefined : proj4(system.proj, 'EPSG:4326');
  return outlines.map((outline) => {
    const out: number[] = [];
    for (let i = 0; i + 1 < outline.length; i += 2) {
      const [x, y] = northingFirst ? [outline[i + 1]!, outline[i]!] : [outline[i]!, outline[i + 1]!];
      const [lon, lat] = convert ? convert.forward([x, y]) : [x, y];
      out.push(lon!, lat!);
    }
    return out;
  });
}

/** Outlines taken to be lon/lat, where no system is named: a position outside lon/lat ranges means some other system. */
function plainOrUnknown(outlines: Outline[], what: string): GeometryRead {
  const outside = outlines.some((outline) => outline.some((value, i) => Math.abs(value) > (i % 2 === 0 ? 180 : 90)));
  return outside ? { type: 'unknown-crs', crs: `${what} names no reference system and is not in longitude and latitude` } : { type: 'outlines', outlines };
}

function named(outlines: Outline[], name: string, form: 'geojson' | 'wkt' | 'gml'): GeometryRead {
  const system = systemOf(name);
  const converted = system && toWgs84(outlines, system.code, form === 'gml' && system.ownAxes && SYSTEMS[system.code]!.northingFirst);
  return converted ? { type: 'outlines', outlines: converted } : { type: 'unknown-crs', crs: name };
}

// GeoJSON.

const GEOJSON = new Set(['Point', 'MultiPoint', 'LineString', 'MultiLineString', 'Polygon', 'MultiPolygon']);
const isPosition = (value: unknown): value is number[] => Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'number';
const flat = (positions: unknown): Outline => (Array.isArray(positions) ? positions.filter(isPosition).flatMap(([x, y]) => [x!, y!]) : []);

function geoJsonOutlines(type: string, coordinates: unknown): Outline[] {
  if (!Array.isArray(coordinates)) return [];
  switch (type) {
    case 'Point':
      return isPosition(coordinates) ? [[coordinates[0]!, coordinates[1]!]] : [];
    case 'MultiPoint':
      return coordinates.filter(isPosition).map(([x, y]) => [x!, y!]);
    case 'LineString':
      return [flat(coordinates)];
    case 'MultiLineString':
      return coordinates.map(flat);
    case 'Polygon':
      return [flat(coordinates[0])];
    case 'MultiPolygon':
      return coordinates.map((polygon) => flat(Array.isArray(polygon) ? polygon[0] : undefined));
    default:
      return [];
  }
}

/** The name in a GeoJSON object's legacy `crs` member (GeoJSON 2008), if any. */
export function geoJsonCrs(value: Record<string, unknown>): string | undefined {
  const crs = value.crs as { properties?: { name?: unknown } } | undefined;
  return typeof crs?.properties?.name === 'string' ? crs.properties.name : undefined;
}

// WKT and EWKT.

const WKT = /^\s*(?:SRID=(\d+)\s*;\s*)?(POINT|LINESTRING|POLYGON|MULTIPOINT|MULTILINESTRING|MULTIPOLYGON)\s*(?:ZM|Z|M)?\s*(\(.*\))\s*$/is;

type Nested = number[] | Nested[];

/** `((1 2, 3 4), (5 6))` as nested arrays, a tuple `1 2` as [1, 2]. */
function parseParens(text: string): Nested | undefined {
  let i = 0;
  const list = (): Nested | undefined => {
    if (text[i] !== '(') return undefined;
    i++;
    const items: Nested[] = [];
    for (;;) {
      while (text[i] === ' ' || text[i] === '\n' || text[i] === '\t') i++;
      if (text[i] === '(') {
        const inner = list();
        if (!inner) return undefined;
        items.push(inner);
      } else {
        const end = text.slice(i).search(/[,)]/);
        if (end < 0) return undefined;
        const numbers = text
          .slice(i, i + end)
          .trim()
          .split(/\s+/)
          .map(Number);
        if (numbers.length < 2 || numbers.some(Number.isNaN)) return undefined;
        items.push(numbers);
        i += end;
      }
      while (text[i] === ' ') i++;
      if (text[i] === ',') i++;
      else if (text[i] === ')') {
        i++;
        return items;
      } else return undefined;
    }
  };
  return list();
}

const tuples = (list: Nested): Outline =>
  (list as number[][]).flatMap((tuple) => (Array.isArray(tuple) && typeof tuple[0] === 'number' ? [tuple[0], tuple[1]!] : []));

function wktOutlines(type: string, body: Nested): Outline[] {
  const lists = body as Nested[];
  switch (type) {
    case 'POINT':
      return [tuples(lists)];
    case 'LINESTRING':
      return [tuples(lists)];
    case 'POLYGON':
      return lists[0] ? [tuples(lists[0] as Nested)] : [];
    case 'MULTIPOINT':
      // Both (1 2, 3 4) and ((1 2), (3 4)) are written.
      return lists.map((point) => (typeof (point as number[])[0] === 'number' ? [(point as number[])[0]!, (point as number[])[1]!] : tuples(point)));
    case 'MULTILINESTRING':
      return lists.map((line) => tuples(line));
    case 'MULTIPOLYGON':
      return lists.map((polygon) => ((polygon as Nested[])[0] ? tuples((polygon as Nested[])[0]!) : []));
    default:
      return [];
  }
}

// GML 2 and 3.2.

const GML_GEOMETRY = /<(?:\w+:)?(Point|LineString|Polygon|MultiPoint|MultiLineString|MultiPolygon|MultiSurface|MultiCurve|Surface|Curve|LinearRing)\b/;
const elements = (text: string, name: string) =>
  [...text.matchAll(new RegExp(`<(?:\\w+:)?${name}\\b[^>]*>([\\s\\S]*?)</(?:\\w+:)?${name}>`, 'g'))].map((m) => ({ whole: m[0], inner: m[1]! }));

/** The coordinates of GML text: posList and pos (3.2, `x y x y`), coordinates (2, `x,y x,y`). */
function gmlCoordinates(text: string): Outline[] {
  const outlines: Outline[] = [];
  for (const { whole, inner } of [...elements(text, 'posList'), ...elements(text, 'pos')]) {
    const dimension = Number(/srsDimension="(\d)"/.exec(whole)?.[1] ?? 2);
    const numbers = inner.trim().split(/\s+/).map(Number);
    const outline: number[] = [];
    for (let i = 0; i + 1 < numbers.length; i += dimension) outline.push(numbers[i]!, numbers[i + 1]!);
    outlines.push(outline);
  }
  for (const { inner } of elements(text, 'coordinates'))
    outlines.push(
      inner
        .trim()
        .split(/\s+/)
        .flatMap((tuple) => tuple.split(',').slice(0, 2).map(Number)),
    );
  return outlines.filter((outline) => outline.length >= 2 && !outline.some(Number.isNaN));
}

function gmlOutlines(text: string): Outline[] {
  const outer = [...elements(text, 'exterior'), ...elements(text, 'outerBoundaryIs')];
  return outer.length ? outer.flatMap(({ inner }) => gmlCoordinates(inner)) : gmlCoordinates(text);
}

/**
 * A geometry's outlines in WGS 84 lon/lat, read from whatever form it is in: a GeoJSON geometry
 * object (`crs` is the name its legacy member, or a Feature around it, gives), a WKT or EWKT
 * string, or GML text. Undefined when the value is no geometry.
 */
export function readGeometry(value: unknown, crs?: string): GeometryRead | undefined {
  if (typeof value === 'string') {
    const wkt = WKT.exec(value);
    if (wkt) {
      const body = parseParens(wkt[3]!.trim());
      if (!body) return undefined;
      const outlines = wktOutlines(wkt[2]!.toUpperCase(), body).filter((outline) => outline.length >= 2);
      return wkt[1] ? named(outlines, `EPSG:${wkt[1]}`, 'wkt') : plainOrUnknown(outlines, 'WKT');
    }
    if (value.includes('<') && GML_GEOMETRY.test(value)) {
      const outlines = gmlOutlines(value);
      const srsName = /srsName="([^"]+)"/.exec(value)?.[1];
      return srsName ? named(outlines, srsName, 'gml') : plainOrUnknown(outlines, 'GML');
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { type, coordinates } = value as Record<string, unknown>;
  if (typeof type !== 'string' || !GEOJSON.has(type)) return undefined;
  const outlines = geoJsonOutlines(type, coordinates).filter((outline) => outline.length >= 2);
  const name = geoJsonCrs(value as Record<string, unknown>) ?? crs;
  return name ? named(outlines, name, 'geojson') : plainOrUnknown(outlines, 'GeoJSON');
}
