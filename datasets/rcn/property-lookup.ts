/**
 * What the property filters look up (`parcelIdentifier`, `address`, `bbox`), taken from a
 * property's parcels, buildings and units. Read defensively: the spec does not show their shape,
 * so an upstream's elements may lack any of these fields.
 */

export interface PropertyLookup {
  parcel_ids: string[];
  /** Every locality, street and building number of the property's addresses, once each. */
  address_parts: string[];
  min_lon: number | null;
  min_lat: number | null;
  max_lon: number | null;
  max_lat: number | null;
}

type Element = Record<string, unknown>;

const stringsOf = (element: Element, keys: readonly string[]): string[] =>
  keys.map((key) => element[key]).filter((v): v is string => typeof v === 'string' && v !== '');

/** Every [lon, lat] pair inside a GeoJSON geometry, however deeply nested. */
function* positions(value: unknown): Generator<[number, number]> {
  if (!Array.isArray(value)) return;
  if (value.length >= 2 && typeof value[0] === 'number' && typeof value[1] === 'number') {
    yield [value[0], value[1]];
    return;
  }
  for (const item of value) yield* positions(item);
}

export function lookupOf(details: { parcels: unknown; buildings: unknown; units: unknown }): PropertyLookup {
  const elements = [details.parcels, details.buildings, details.units].flatMap((list) =>
    Array.isArray(list) ? (list.filter((e) => e !== null && typeof e === 'object') as Element[]) : [],
  );
  const parcels = Array.isArray(details.parcels) ? (details.parcels as Element[]) : [];
  const parts = new Set<string>();
  let minLon = Infinity, minLat = Infinity, maxLon = -Infinity, maxLat = -Infinity;
  for (const element of elements) {
    const address = element.address;
    if (address && typeof address === 'object') {
      for (const part of stringsOf(address as Element, ['locality', 'street', 'number'])) parts.add(part);
    }
    for (const key of ['geometry', 'location']) {
      const geometry = element[key] as { coordinates?: unknown } | undefined;
      for (const [lon, lat] of positions(geometry?.coordinates)) {
        minLon = Math.min(minLon, lon); maxLon = Math.max(maxLon, lon);
        minLat = Math.min(minLat, lat); maxLat = Math.max(maxLat, lat);
      }
    }
  }
  const found = minLon <= maxLon;
  return {
    parcel_ids: parcels.flatMap((p) => (p && typeof p === 'object' ? stringsOf(p, ['id']) : [])),
    address_parts: [...parts],
    min_lon: found ? minLon : null,
    min_lat: found ? minLat : null,
    max_lon: found ? maxLon : null,
    max_lat: found ? maxLat : null,
  };
}
