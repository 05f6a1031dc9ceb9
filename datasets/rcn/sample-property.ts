import type { RowOf } from '../../core/table.ts';
import type { Random } from '../vocabulary/random.ts';
import { offsetPosition, positionNear, type District } from '../vocabulary/sample-city.ts';
import type { SampleContext } from '../vocabulary/sample.ts';
import { propertyRightTypes, propertyTypes, termOf, type Dictionary } from './dictionaries.ts';
import type { Building, Parcel, Unit } from './property-details.ts';
import { lookupOf } from './property-lookup.ts';
import { addressIn, buildingOn, parcelAt, unitIn, type Block } from './sample-block.ts';
import type { properties } from './tables.ts';

/**
 * Properties of the sample register: where they are, what they consist of and what they cost.
 * Buildings of flats come from a fixed pool per district, so many sales share a parcel and an
 * address, as in a real city.
 */

export type PropertyRow = RowOf<typeof properties.columns>;
/** A property before it knows its transactions, with its price in grosze (1/100 PLN). */
export interface PropertyDraft {
  readonly row: Omit<PropertyRow, 'property_gml_id' | 'transaction_ids'>;
  readonly priceCents: number;
  /** VAT included in the price, in grosze, or null when the sale bears none. */
  readonly vatCents: number | null;
}

const termColumns = (dictionary: Dictionary, code: number) => ({ code, value: termOf(dictionary, code).value });

/** Average asking price of a flat per m², PLN, by year: the city's trend. */
const flatPricePerM2 = [
  [2019, 9_800],
  [2020, 10_300],
  [2021, 11_200],
  [2022, 12_100],
  [2023, 13_600],
  [2024, 15_600],
  [2025, 16_400],
  [2026, 16_900],
] as const;

export function flatPriceLevel(day: string): number {
  const t = Number(day.slice(0, 4)) + (Number(day.slice(5, 7)) - 1) / 12;
  const first = flatPricePerM2[0],
    last = flatPricePerM2[flatPricePerM2.length - 1]!;
  if (t <= first[0]) return first[1];
  if (t >= last[0]) return last[1] * (1 + 0.03 * (t - last[0]));
  const i = flatPricePerM2.findIndex(([year]) => year > t);
  const [y0, p0] = flatPricePerM2[i - 1]!,
    [, p1] = flatPricePerM2[i]!;
  return p0 + (p1 - p0) * (t - y0);
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));
const round = (value: number, step: number) => Math.max(step, Math.round(value / step) * step);

function draft(
  type: number,
  right: number,
  share: string,
  landArea: number,
  details: { parcels: Parcel[]; buildings: Building[]; units: Unit[] },
  priceCents: number,
  vatRate: number | null,
): PropertyDraft {
  const { code: property_type_code, value: property_type_value } = termColumns(propertyTypes, type);
  const { code: property_right_type_code, value: property_right_type_value } = termColumns(propertyRightTypes, right);
  return {
    row: {
      property_type_code,
      property_type_value,
      property_right_type_code,
      property_right_type_value,
      property_right_share: share,
      land_area_m2: landArea.toFixed(4),
      gross_price: (priceCents / 100).toFixed(2),
      currency: 'PLN',
      ...details,
      ...lookupOf(details),
    },
    priceCents,
    vatCents: vatRate === null ? null : Math.round((priceCents * vatRate) / (1 + vatRate)),
  };
}

export function flat(random: Random, _context: SampleContext, day: string, block: Block, district: District, primary: boolean): PropertyDraft {
  const area = clamp(random.logNormal(50, 0.33), 22, 160);
  const rooms = clamp(Math.round(area / 20) + (random.chance(0.2) ? random.pick([-1, 1]) : 0), 1, 6);
  const perM2 = flatPriceLevel(day) * district.priceLevel * random.logNormal(1, 0.17) * (primary ? 1.04 : 1);
  const unit = unitIn(block.building, block.centre, random.int(1, block.floors * 8), 1, rooms, random.int(0, block.floors - 1), area);
  const share = random.chance(0.08) ? '1/2' : '1/1';
  return draft(
    4,
    3,
    share,
    block.parcel.areaM2,
    { parcels: [block.parcel], buildings: [block.building], units: [unit] },
    round(area * perM2, 1000) * 100,
    primary ? 0.08 : null,
  );
}

export function garage(random: Random, block: Block, district: District, primary: boolean): PropertyDraft {
  const unit = unitIn(block.building, block.centre, random.int(500, 699), 5, 1, -1, random.between(12, 19));
  return draft(
    4,
    3,
    '1/1',
    block.parcel.areaM2,
    { parcels: [block.parcel], buildings: [block.building], units: [unit] },
    round(random.between(35_000, 90_000) * district.priceLevel, 500) * 100,
    primary ? 0.23 : null,
  );
}

export function commercialUnit(random: Random, day: string, block: Block, district: District, primary: boolean): PropertyDraft {
  const area = clamp(random.logNormal(90, 0.5), 25, 600);
  const unit = unitIn(block.building, block.centre, random.int(700, 799), random.chance(0.6) ? 2 : 3, random.int(1, 8), 0, area);
  const perM2 = flatPriceLevel(day) * district.priceLevel * random.logNormal(0.95, 0.25);
  return draft(
    4,
    3,
    '1/1',
    block.parcel.areaM2,
    { parcels: [block.parcel], buildings: [block.building], units: [unit] },
    round(area * perM2, 1000) * 100,
    primary ? 0.23 : null,
  );
}

export function house(random: Random, district: District, developer: boolean): PropertyDraft {
  const centre = positionNear(random, district, district.radiusKm);
  const landArea = clamp(random.logNormal(750, 0.4), 250, 3000);
  const width = Math.sqrt(landArea * random.between(0.4, 0.9));
  const address = addressIn(random, district);
  const parcels = [
    parcelAt(
      random,
      district,
      centre,
      width,
      landArea / width,
      3,
      random.weighted([
        [1, 6],
        [9, 3],
        [10, 1],
      ] as const),
      address,
    ),
  ];
  if (random.chance(0.15)) {
    parcels.push(parcelAt(random, district, offsetPosition(centre, width, 0), width * 0.5, landArea / width, 3, 1, address));
  }
  const houseArea = clamp(random.logNormal(150, 0.3), 70, 400);
  const building = buildingOn(random, parcels[0]!, centre, 110, houseArea, random.int(1, 3), [Math.sqrt(houseArea / 1.6), Math.sqrt(houseArea / 1.6)]);
  const land = parcels.reduce((sum, p) => sum + p.areaM2, 0);
  const price = land * 800 * district.priceLevel * random.logNormal(1, 0.3) + houseArea * random.between(5_500, 9_000);
  return draft(2, random.chance(0.85) ? 1 : 2, '1/1', land, { parcels, buildings: [building], units: [] }, round(price, 1000) * 100, developer ? 0.08 : null);
}

/** Undeveloped land: price per m² by local-plan designation (PLN), and a typical plot size (m²). */
const plotKinds = [
  // designation, weight, land use, price per m², median area
  [1, 30, 3, 800, 900],
  [10, 20, 5, 350, 1500],
  [9, 15, 3, 650, 1000],
  [2, 8, 3, 1500, 2500],
  [3, 8, 3, 1100, 2000],
  [6, 8, 1, 120, 6000],
  [8, 5, 4, 60, 300],
  [7, 3, 2, 90, 8000],
  [4, 3, 5, 500, 4000],
] as const;

export function plot(random: Random, district: District): PropertyDraft {
  const [designation, , landUse, perM2, medianArea] = random.weighted(plotKinds.map((k) => [k, k[1]] as const));
  const centre = positionNear(random, district, district.radiusKm);
  const address = addressIn(random, district);
  const parcels: Parcel[] = [];
  for (
    let i = 0,
      n = random.weighted([
        [1, 75],
        [2, 20],
        [3, 5],
      ] as const);
    i < n;
    i++
  ) {
    const area = clamp(random.logNormal(medianArea, 0.5), 150, 60_000);
    const width = Math.sqrt(area * random.between(0.3, 1.2));
    parcels.push(parcelAt(random, district, offsetPosition(centre, i * width, 0), width, area / width, landUse, designation, address));
  }
  const land = parcels.reduce((sum, p) => sum + p.areaM2, 0);
  const price = land * perM2 * district.priceLevel * random.logNormal(1, 0.35);
  return draft(1, random.chance(0.88) ? 1 : 2, random.chance(0.1) ? '1/2' : '1/1', land, { parcels, buildings: [], units: [] }, round(price, 100) * 100, null);
}

export function buildingProperty(random: Random, district: District, vat: boolean): PropertyDraft {
  const centre = positionNear(random, district, district.radiusKm);
  const type = random.weighted([
    [103, 35],
    [105, 25],
    [101, 10],
    [104, 10],
    [107, 8],
    [109, 7],
    [106, 5],
  ] as const);
  const usable = clamp(random.logNormal(900, 0.6), 150, 12_000);
  const floors = random.int(1, 6);
  const side = Math.sqrt(usable / floors);
  const parcel = parcelAt(
    random,
    district,
    centre,
    side * random.between(1.4, 2.2),
    side * random.between(1.4, 2.2),
    3,
    random.weighted([
      [3, 6],
      [4, 3],
      [null, 1],
    ] as const),
    addressIn(random, district),
  );
  const building = buildingOn(random, parcel, centre, type, usable, floors, [side, side]);
  const price = usable * random.logNormal(5_500, 0.35);
  return draft(3, 4, '1/1', parcel.areaM2, { parcels: [parcel], buildings: [building], units: [] }, round(price, 1000) * 100, vat ? 0.23 : null);
}
