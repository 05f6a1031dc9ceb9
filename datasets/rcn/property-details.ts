import { z } from 'zod';
import { doc, link, named } from '../vocabulary/field.ts';

/**
 * The shape the sample upstream gives property parcels, buildings and units. The spec does not
 * show it (any upstream's shape is kept as sent); the register's GML fields inspired it.
 */

const codedTerm = z.object({ code: z.number().int(), value: z.string(), termUri: link() });

export const address = named(
  'SampleAddress',
  z.object({
    locality: doc(z.string(), 'Locality (miejscowość).', 'Miejscowość.'),
    street: doc(z.string(), 'Street, with its kind (ul., al., pl.).', 'Ulica, z rodzajem (ul., al., pl.).'),
    number: doc(z.string(), 'Building number (numer porządkowy).', 'Numer porządkowy.'),
  }),
  'An address of a parcel, building or unit.',
  'Adres działki, budynku lub lokalu.',
);

const ring = z.array(z.tuple([z.number(), z.number()])).min(4);
const polygon = z.object({ type: z.literal('Polygon'), coordinates: z.array(ring).min(1) });
const point = z.object({ type: z.literal('Point'), coordinates: z.tuple([z.number(), z.number()]) });

export const parcel = z.object({
  id: doc(z.string(), 'Cadastral parcel identifier, WWPPGG_R.OOOO.NR[/SUB].', 'Identyfikator działki ewidencyjnej, WWPPGG_R.OOOO.NR[/SUB].'),
  areaM2: doc(z.number(), 'Cadastral area in square metres.', 'Powierzchnia ewidencyjna w metrach kwadratowych.'),
  landUse: doc(codedTerm, 'Land use (dictionary land-uses).', 'Sposób użytkowania (słownik land-uses).'),
  localPlanDesignation: doc(
    codedTerm.nullable(),
    'Designation in the local plan (dictionary local-plan-designations).',
    'Przeznaczenie w planie miejscowym (słownik local-plan-designations).',
  ),
  address,
  geometry: doc(polygon, 'Outline, a GeoJSON Polygon in WGS 84.', 'Obrys, GeoJSON Polygon w WGS 84.'),
});

export const building = z.object({
  id: doc(z.string(), 'Building identifier, <parcel>.<number>_BUD.', 'Identyfikator budynku, <działka>.<numer>_BUD.'),
  buildingType: doc(codedTerm.nullable(), 'Building type (dictionary building-types).', 'Rodzaj budynku (słownik building-types).'),
  usableAreaM2: doc(z.number(), 'Usable area in square metres.', 'Powierzchnia użytkowa w metrach kwadratowych.'),
  floors: doc(z.number().int(), 'Number of above-ground storeys.', 'Liczba kondygnacji nadziemnych.'),
  address,
  geometry: doc(polygon, 'Footprint, a GeoJSON Polygon in WGS 84.', 'Obrys, GeoJSON Polygon w WGS 84.'),
});

export const unit = z.object({
  id: doc(z.string(), 'Unit identifier, <building>.<number>_LOK.', 'Identyfikator lokalu, <budynek>.<numer>_LOK.'),
  unitFunction: doc(codedTerm, 'Function of the unit (dictionary unit-functions).', 'Funkcja lokalu (słownik unit-functions).'),
  rooms: doc(z.number().int(), 'Number of rooms.', 'Liczba izb.'),
  floor: doc(z.number().int(), 'Floor (0 = ground floor).', 'Kondygnacja (0 = parter).'),
  usableAreaM2: doc(z.number(), 'Usable area in square metres.', 'Powierzchnia użytkowa w metrach kwadratowych.'),
  address,
  location: doc(point, 'Position, a GeoJSON Point in WGS 84.', 'Położenie, GeoJSON Point w WGS 84.'),
});

export type Parcel = z.infer<typeof parcel>;
export type Building = z.infer<typeof building>;
export type Unit = z.infer<typeof unit>;
export type Address = z.infer<typeof address>;
