import type { Random } from '../vocabulary/random.ts';
import { BASE_URL_TOKEN } from '../vocabulary/render.ts';
import { city, positionNear, rectangleRing, streetsOf, type District, type Position } from '../vocabulary/sample-city.ts';
import type { SampleContext } from '../vocabulary/sample.ts';
import { buildingTypes, landUses, localPlanDesignations, termOf, unitFunctions, type Dictionary } from './dictionaries.ts';
import type { Address, Building, Parcel, Unit } from './property-details.ts';
import { dictionaryPath } from './render.ts';

/**
 * Where a property of the sample register is: its address, parcel, building and units, each with
 * its geometry and its terms from the dictionaries (see sample-property.ts for what is sold).
 */

/** Stored JSON keeps links relative to {base_url}; see core/render.ts. */
const termJson = (dictionary: Dictionary, code: number) => ({
  code,
  value: termOf(dictionary, code).value,
  termUri: `${BASE_URL_TOKEN}${dictionaryPath(dictionary.name)}#code-${code}`,
});

const areaOf = (value: number) => Math.round(value * 100) / 100;

export function addressIn(random: Random, district: District): Address {
  const number = `${random.int(1, 180)}${random.chance(0.15) ? random.pick(['A', 'B', 'C', 'D']) : ''}`;
  return { locality: city.name, street: random.pick(streetsOf(district)), number };
}

export function parcelAt(
  random: Random,
  district: District,
  centre: Position,
  width: number,
  depth: number,
  landUse: number,
  designation: number | null,
  address: Address,
): Parcel {
  const precinct = String(random.int(1, 60)).padStart(4, '0');
  const number = `${random.int(1, 1800)}${random.chance(0.35) ? `/${random.int(1, 40)}` : ''}`;
  return {
    id: `${district.teryt}.${precinct}.${number}`,
    areaM2: areaOf(width * depth),
    landUse: termJson(landUses, landUse),
    localPlanDesignation: designation === null ? null : termJson(localPlanDesignations, designation),
    address,
    geometry: { type: 'Polygon', coordinates: [rectangleRing(centre, width, depth, random.between(0, Math.PI))] },
  };
}

export function buildingOn(
  random: Random,
  parcel: Parcel,
  centre: Position,
  type: number | null,
  usableArea: number,
  floors: number,
  footprint: [number, number],
): Building {
  return {
    id: `${parcel.id}.${random.int(1, 3)}_BUD`,
    buildingType: type === null ? null : termJson(buildingTypes, type),
    usableAreaM2: areaOf(usableArea),
    floors,
    address: parcel.address,
    geometry: { type: 'Polygon', coordinates: [rectangleRing(centre, footprint[0], footprint[1], random.between(0, Math.PI))] },
  };
}

export function unitIn(building: Building, centre: Position, number: number, fn: number, rooms: number, floor: number, area: number): Unit {
  return {
    id: `${building.id}.${number}_LOK`,
    unitFunction: termJson(unitFunctions, fn),
    rooms,
    floor,
    usableAreaM2: areaOf(area),
    address: building.address,
    location: { type: 'Point', coordinates: [centre.lon, centre.lat] },
  };
}

/** A block of flats: the same parcel, building and address every time it is drawn. */
export interface Block {
  readonly parcel: Parcel;
  readonly building: Building;
  readonly centre: Position;
  readonly floors: number;
}

export function blockOf(context: SampleContext, district: District, key: string): Block {
  const random = context.random('rcn', 'block', district.teryt, key);
  const centre = positionNear(random, district, district.radiusKm);
  const floors = random.weighted([
    [4, 3],
    [5, 4],
    [8, 3],
    [11, 3],
    [16, 1],
  ] as const);
  const [width, depth] = [random.between(55, 120), random.between(40, 80)];
  const footprint: [number, number] = [width * random.between(0.5, 0.8), random.between(12, 16)];
  const parcel = parcelAt(
    random,
    district,
    centre,
    width,
    depth,
    3,
    random.weighted([
      [2, 6],
      [9, 3],
      [null, 1],
    ] as const),
    addressIn(random, district),
  );
  const building = buildingOn(random, parcel, centre, 110, footprint[0] * footprint[1] * floors * 0.75, floors, footprint);
  return { parcel, building, centre, floors };
}
