/**
 * What the property filters look up (`parcelIdentifier`, `address`, `bbox`), read from a
 * property's parcels, buildings and units. The spec does not show their shape, so each is read
 * from whatever an upstream sends: cadastral identifiers wherever they are in a parcel (or under
 * a key that names one), address parts under the names implementations give them, geometry
 * wherever it appears in an element (under `geometry`, `shape`, as a bare Feature, …) in any form
 * geometry.ts reads: GeoJSON, WKT, GML, in the reference systems they name.
 */
import { geoJsonCrs, readGeometry } from '../vocabulary/geometry.ts';

export interface PropertyLookup {
  parcel_ids: string[];
  /** Every locality, street and building number of the property's addresses, once each. */
  address_parts: string[];
  min_lon: number | null;
  min_lat: number | null;
  max_lon: number | null;
  max_lat: number | null;
  /** Outer rings of polygons, lines and points, each as [lon, lat, lon, lat, …]: what `bbox` intersects. */
  outlines: number[][];
}

/** What a filter needs and a kind of element lacked: the filter's name, and for a geometry in a system odsnap cannot convert, which. */
export type Unread = 'parcelIdentifier' | 'address' | 'bbox' | `bbox (${string})`;

type Element = Record<string, unknown>;

const isRecord = (value: unknown): value is Element => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A full cadastral parcel identifier, WWPPGG_R.OOOO.NR[/SUB] (TERYT unit, precinct, number). */
const CADASTRAL = /^\d{6}_\d\.\d{4}\.[\w/.-]+$/;
/** Keys that name a parcel's identifier, where its value has another shape than a cadastral one. */
const PARCEL_ID_KEYS = ['id', 'identifier', 'parcelId', 'parcelIdentifier', 'idDzialki', 'identyfikatorDzialki'];
/** The parts of an address the `address` filter reads, under the names implementations give them. */
const ADDRESS_KEYS = {
  locality: ['locality', 'city', 'town', 'place', 'miejscowosc', 'miejscowość'],
  street: ['street', 'streetName', 'ulica', 'road'],
  number: ['number', 'buildingNumber', 'houseNumber', 'numer', 'numerPorzadkowy', 'numerPorządkowy'],
};
const ALL_ADDRESS_KEYS = new Set(Object.values(ADDRESS_KEYS).flat());
/** Every value inside a JSON value, objects and arrays first, depth first, each with the reference system a GeoJSON `crs` around it names. */
function* walk(value: unknown, crs?: string): Generator<[unknown, string | undefined]> {
  yield [value, crs];
  if (Array.isArray(value)) for (const item of value) yield* walk(item, crs);
  else if (isRecord(value)) {
    const inner = geoJsonCrs(value) ?? crs;
    for (const key in value) yield* walk(value[key], inner);
  }
}

export function lookupOf(details: { parcels: unknown; buildings: unknown; units: unknown }, unread: (filter: Unread) => void = () => {}): PropertyLookup {
  const listOf = (value: unknown) => (Array.isArray(value) ? value.filter(isRecord) : []);
  const parcels = listOf(details.parcels);
  const elements = [...parcels, ...listOf(details.buildings), ...listOf(details.units)];
  const parcelIds: string[] = [];
  for (const parcel of parcels) {
    const cadastral = [...walk(parcel)].map(([v]) => v).filter((v): v is string => typeof v === 'string' && CADASTRAL.test(v));
    const named = PARCEL_ID_KEYS.map((key) => parcel[key]).filter((v): v is string => typeof v === 'string' && v !== '');
    parcelIds.push(...new Set(cadastral.length ? cadastral : named.slice(0, 1)));
  }
  const parts = new Set<string>();
  const outlines: number[][] = [];
  let anyAddress = false;
  const unknownSystems = new Set<string>();
  for (const element of elements) {
    for (const [value, crs] of walk(element)) {
      const geometry = readGeometry(value, crs);
      if (geometry?.type === 'outlines') outlines.push(...geometry.outlines.filter((ring) => ring.length >= 2));
      else if (geometry?.type === 'unknown-crs') unknownSystems.add(geometry.crs);
      if (!isRecord(value) || !Object.keys(value).some((key) => ALL_ADDRESS_KEYS.has(key))) continue;
      anyAddress = true;
      for (const key of ALL_ADDRESS_KEYS) {
        const part = value[key];
        if (typeof part === 'string' && part !== '') parts.add(part);
      }
    }
  }
  if (parcels.length && !parcelIds.length) unread('parcelIdentifier');
  if (elements.length && !anyAddress) unread('address');
  for (const crs of unknownSystems) unread(`bbox (geometry in ${crs}, a reference system odsnap cannot convert)`);
  if (elements.length && !outlines.length && !unknownSystems.size) unread('bbox');
  let minLon = Infinity,
    minLat = Infinity,
    maxLon = -Infinity,
    maxLat = -Infinity;
  for (const ring of outlines) {
    for (let i = 0; i + 1 < ring.length; i += 2) {
      minLon = Math.min(minLon, ring[i]!);
      maxLon = Math.max(maxLon, ring[i]!);
      minLat = Math.min(minLat, ring[i + 1]!);
      maxLat = Math.max(maxLat, ring[i + 1]!);
    }
  }
  const found = minLon <= maxLon;
  return {
    parcel_ids: parcelIds,
    address_parts: [...parts],
    min_lon: found ? minLon : null,
    min_lat: found ? minLat : null,
    max_lon: found ? maxLon : null,
    max_lat: found ? maxLat : null,
    outlines,
  };
}
