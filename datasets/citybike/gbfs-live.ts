import { createHash } from 'node:crypto';
import type { GeofencingZones, VehicleStatus, VehicleTypes } from 'gbfs-typescript-types/v3.0';
import type { RowOf } from '../../core/table.ts';
import { text } from '../../core/text.ts';
import type { FeedDocument } from '../vocabulary/feed.ts';
import { headerOf, localized } from './gbfs-header.ts';
import type * as tables from './tables.ts';

/**
 * The GBFS documents made from the newest capture of the live map: its bicycles' types, the
 * bicycles, and the zones as geofencing zones. What does not map faithfully is left out and said,
 * never guessed.
 */

type LiveBikeRow = RowOf<typeof tables.live_bikes.columns>;
type LiveZoneRow = RowOf<typeof tables.live_zones.columns>;
type VehicleType = VehicleTypes['data']['vehicle_types'][number];

/**
 * The bicycle types the data set's own field doc names, as GBFS vehicle types (their id is the
 * type as the upstream writes it). `electric` is not among them: GBFS asks every motorised type
 * for its range (`max_range_meters`, and each vehicle for `current_range_meters`), which the live
 * map does not give. A bicycle of a type not here is left out, and counted.
 */
const KNOWN_TYPES: Readonly<Record<string, Pick<VehicleType, 'form_factor' | 'propulsion_type' | 'rider_capacity' | 'name'>>> = {
  standard: { form_factor: 'bicycle', propulsion_type: 'human', rider_capacity: 1, name: localized(text('Standard bicycle', 'Rower standardowy')) },
  tandem: { form_factor: 'bicycle', propulsion_type: 'human', rider_capacity: 2, name: localized(text('Tandem bicycle', 'Rower tandem')) },
  child: { form_factor: 'bicycle', propulsion_type: 'human', rider_capacity: 1, name: localized(text("Child's bicycle", 'Rower dziecięcy')) },
};

/** The newest capture's bicycles of a known type, and what the others were left out for. */
function mappedBikes(rows: readonly LiveBikeRow[]): { bikes: LiveBikeRow[]; leftOut: string[] } {
  const unknown = new Map<string, number>();
  const bikes = rows.filter((bike) => Object.hasOwn(KNOWN_TYPES, bike.type) || !unknown.set(bike.type, (unknown.get(bike.type) ?? 0) + 1));
  const leftOut = [...unknown].map(([type, count]) => `${count} bicycle(s) of type "${type}": no GBFS vehicle type is known for it without guessing`);
  return { bikes, leftOut };
}

const latestBikes = async (source: Parameters<FeedDocument['make']>[0]) => mappedBikes((await source.latest('liveBike')) as LiveBikeRow[]);

export const vehicleTypes: FeedDocument = {
  file: 'vehicle_types.json',
  async make(source) {
    // What is left out is said once, by vehicle_status.
    const { bikes } = await latestBikes(source);
    const types = [...new Set(bikes.map((bike) => bike.type))].sort();
    const body: VehicleTypes = {
      ...(await headerOf(source)),
      data: { vehicle_types: types.map((type) => ({ vehicle_type_id: type, ...KNOWN_TYPES[type]! })) },
    };
    return { body };
  },
};

/**
 * GBFS wants a vehicle's id rotated after each trip, so that a trip cannot be followed through
 * the feed: the bicycle's number hashed with where it stands, which changes when it is ridden
 * (or moved) and not otherwise. It hides nothing the v1 `/live` shows, but keeps the feed's promise.
 */
export const rotatingId = (bike: Pick<LiveBikeRow, 'number' | 'lat' | 'lon'>) =>
  createHash('sha256').update(`${bike.number}\n${bike.lat}\n${bike.lon}`).digest('base64url').slice(0, 16);

export const vehicleStatus: FeedDocument = {
  file: 'vehicle_status.json',
  async make(source) {
    const { bikes, leftOut } = await latestBikes(source);
    const body: VehicleStatus = {
      ...(await headerOf(source)),
      data: {
        vehicles: bikes.map((bike) => ({
          vehicle_id: rotatingId(bike),
          lat: bike.lat,
          lon: bike.lon,
          // The live map says only whether a bicycle can be rented now: one that cannot is shown
          // as disabled, the one way GBFS says so without claiming a reservation nobody saw.
          is_reserved: false,
          is_disabled: !bike.available,
          vehicle_type_id: bike.type,
        })),
      },
    };
    return { body, leftOut };
  },
};

/**
 * A zone's area as a GeoJSON ring, when it has the shape the sample upstream sends (the spec shows
 * none): [longitude, latitude] pairs of a closed ring of at least four, around the zone's centre
 * (which a ring of [latitude, longitude] pairs would not be). Any other shape is undefined.
 */
export function ringOf(zone: Pick<LiveZoneRow, 'area' | 'lat' | 'lon'>): number[][] | undefined {
  const area = zone.area;
  if (!Array.isArray(area) || area.length < 4) return undefined;
  const isPair = (point: unknown): point is [number, number] =>
    Array.isArray(point) && point.length === 2 && point.every((value) => typeof value === 'number' && Number.isFinite(value));
  if (!area.every(isPair)) return undefined;
  const ring = area as [number, number][];
  const [first, last] = [ring[0]!, ring.at(-1)!];
  if (first[0] !== last[0] || first[1] !== last[1]) return undefined;
  const lons = ring.map(([lon]) => lon);
  const lats = ring.map(([, lat]) => lat);
  const around = Math.min(...lons) <= zone.lon && zone.lon <= Math.max(...lons) && Math.min(...lats) <= zone.lat && zone.lat <= Math.max(...lats);
  const onEarth = lons.every((lon) => Math.abs(lon) <= 180) && lats.every((lat) => Math.abs(lat) <= 90);
  return around && onEarth ? ring : undefined;
}

/**
 * The live zones as geofencing zones: a named area each. The live map holds no rules (where a ride
 * may start, end or pass, how fast), and rides may end outside any zone, so none are stated:
 * `global_rules` is empty and no zone has `rules`. A zone's name is tagged Polish, the city's.
 */
export const geofencingZones: FeedDocument = {
  file: 'geofencing_zones.json',
  async make(source) {
    const zones = (await source.latest('liveZone')) as LiveZoneRow[];
    const features: GeofencingZones['data']['geofencing_zones']['features'] = [];
    const leftOut: string[] = [];
    for (const zone of zones) {
      const ring = ringOf(zone);
      if (ring)
        features.push({
          type: 'Feature',
          properties: { name: [{ text: zone.name, language: 'pl' }] },
          geometry: { type: 'MultiPolygon', coordinates: [[ring]] },
        });
      else leftOut.push(`zone "${zone.name}": its area is not a closed ring of [longitude, latitude] pairs around its centre`);
    }
    const body: GeofencingZones = { ...(await headerOf(source)), data: { geofencing_zones: { type: 'FeatureCollection', features }, global_rules: [] } };
    return { body, leftOut };
  },
};
