import type { Random } from './random.ts';

/**
 * The geography of the sample city, shared by every data set's generator so that transactions,
 * zones, counters and stations sit in one coherent place. Districts carry Warsaw's real TERYT
 * cadastral codes and approximate centres; everything placed in them is synthetic.
 */

export interface Position {
  readonly lat: number;
  readonly lon: number;
}

export interface District extends Position {
  /** Cadastral unit, e.g. `146510_8` (Śródmieście). */
  readonly teryt: string;
  readonly name: string;
  readonly radiusKm: number;
  /** Inhabitants, thousands: how much happens there. */
  readonly population: number;
  /** Relative price level of property (1 = city average). */
  readonly priceLevel: number;
  /** Mostly houses and plots rather than blocks of flats. */
  readonly suburban: boolean;
}

const district = (
  code: string,
  name: string,
  lat: number,
  lon: number,
  radiusKm: number,
  population: number,
  priceLevel: number,
  suburban = false,
): District => ({ teryt: `1465${code}_8`, name, lat, lon, radiusKm, population, priceLevel, suburban });

export const city = {
  name: 'Warszawa',
  /** The register namespace of the city's survey office (PL.PZGiK.<number>.RCN). */
  registerNamespace: 'PL.PZGiK.5346.RCN',
  centre: { lat: 52.2297, lon: 21.0122 } as Position,
  timeZone: 'Europe/Warsaw',
  districts: [
    district('02', 'Bemowo', 52.2545, 20.911, 3.0, 125, 0.9),
    district('03', 'Białołęka', 52.325, 21.0, 4.5, 150, 0.8, true),
    district('04', 'Bielany', 52.293, 20.935, 3.5, 130, 0.97),
    district('05', 'Mokotów', 52.193, 21.025, 3.5, 215, 1.15),
    district('06', 'Ochota', 52.212, 20.972, 2.0, 80, 1.1),
    district('07', 'Praga-Południe', 52.239, 21.087, 3.0, 175, 0.95),
    district('08', 'Praga-Północ', 52.26, 21.033, 1.8, 60, 1.0),
    district('09', 'Rembertów', 52.26, 21.16, 2.5, 24, 0.78, true),
    district('10', 'Śródmieście', 52.231, 21.012, 1.8, 105, 1.35),
    district('11', 'Targówek', 52.29, 21.05, 3.0, 125, 0.85),
    district('12', 'Ursus', 52.195, 20.883, 2.0, 60, 0.85),
    district('13', 'Ursynów', 52.143, 21.039, 3.5, 150, 1.0),
    district('14', 'Wawer', 52.199, 21.166, 5.0, 85, 0.82, true),
    district('15', 'Wesoła', 52.24, 21.224, 3.0, 25, 0.8, true),
    district('16', 'Wilanów', 52.163, 21.089, 3.5, 45, 1.1, true),
    district('17', 'Włochy', 52.191, 20.929, 3.0, 45, 0.9),
    district('18', 'Wola', 52.236, 20.964, 2.5, 140, 1.1),
    district('19', 'Żoliborz', 52.268, 20.983, 2.0, 50, 1.2),
  ] as readonly District[],
  streets: [
    'ul. Długa',
    'ul. Krótka',
    'ul. Polna',
    'ul. Leśna',
    'ul. Słoneczna',
    'ul. Ogrodowa',
    'ul. Lipowa',
    'ul. Brzozowa',
    'ul. Kwiatowa',
    'ul. Szkolna',
    'ul. Kościelna',
    'ul. Łąkowa',
    'ul. Spacerowa',
    'ul. Parkowa',
    'ul. Wiśniowa',
    'ul. Klonowa',
    'ul. Jesionowa',
    'ul. Akacjowa',
    'ul. Sosnowa',
    'ul. Dębowa',
    'ul. Modrzewiowa',
    'ul. Cicha',
    'ul. Zielona',
    'ul. Graniczna',
    'ul. Kolejowa',
    'ul. Fabryczna',
    'ul. Przemysłowa',
    'ul. Handlowa',
    'ul. Rynkowa',
    'ul. Mickiewicza',
    'ul. Słowackiego',
    'ul. Kościuszki',
    'ul. Sienkiewicza',
    'ul. Prusa',
    'ul. Reymonta',
    'ul. Żeromskiego',
    'ul. Konopnickiej',
    'ul. Orzeszkowej',
    'ul. Kopernika',
    'ul. Chopina',
    'ul. Moniuszki',
    'ul. Matejki',
    'ul. Kilińskiego',
    'ul. Traugutta',
    'ul. Piłsudskiego',
    'ul. Batorego',
    'ul. Jagiellońska',
    'ul. Piastowska',
    'ul. Mazowiecka',
    'ul. Podlaska',
    'ul. Kujawska',
    'ul. Śląska',
    'ul. Pomorska',
    'ul. Wileńska',
    'ul. Lwowska',
    'ul. Krakowska',
    'ul. Gdańska',
    'ul. Poznańska',
    'ul. Toruńska',
    'ul. Lubelska',
    'ul. Radomska',
    'ul. Grochowska',
    'ul. Wolska',
    'ul. Górczewska',
    'ul. Grójecka',
    'ul. Puławska',
    'ul. Modlińska',
    'ul. Marywilska',
    'ul. Wał Miedzeszyński',
    'ul. Czerniakowska',
    'ul. Sobieskiego',
    'ul. Wilanowska',
    'al. Niepodległości',
    'al. Jerozolimskie',
    'al. Solidarności',
    'al. Krakowska',
    'al. Prymasa Tysiąclecia',
    'al. Jana Pawła II',
    'al. Armii Ludowej',
    'al. Stanów Zjednoczonych',
    'al. Waszyngtona',
    'al. KEN',
    'pl. Wilsona',
    'pl. Narutowicza',
    'pl. Grunwaldzki',
    'ul. Nowy Świat',
    'ul. Marszałkowska',
    'ul. Świętokrzyska',
    'ul. Targowa',
    'ul. Ząbkowska',
    'ul. Bielańska',
    'ul. Broniewskiego',
    'ul. Powstańców Śląskich',
    'ul. Połczyńska',
    'ul. Ostrobramska',
    'ul. Płowiecka',
    'ul. Patriotów',
    'ul. Chełmżyńska',
    'ul. Radzymińska',
    'ul. Kondratowicza',
    'ul. Światowida',
    'ul. Głębocka',
    'ul. Rosoła',
    'ul. Łopuszańska',
    'ul. Ryżowa',
  ] as readonly string[],
};

const METRES_PER_DEGREE_LAT = 111_320;
const metresPerDegreeLon = (lat: number) => METRES_PER_DEGREE_LAT * Math.cos((lat * Math.PI) / 180);

export const roundCoordinate = (value: number) => Math.round(value * 1e7) / 1e7;

/** The point `east` and `north` metres away. */
export const offsetPosition = (from: Position, east: number, north: number): Position => ({
  lat: roundCoordinate(from.lat + north / METRES_PER_DEGREE_LAT),
  lon: roundCoordinate(from.lon + east / metresPerDegreeLon(from.lat)),
});

/** A point scattered around a centre, denser near it. */
export function positionNear(random: Random, centre: Position, radiusKm: number): Position {
  const distance = Math.abs(random.normal(0, radiusKm * 500));
  const angle = random.between(0, 2 * Math.PI);
  return offsetPosition(centre, distance * Math.cos(angle), distance * Math.sin(angle));
}

export function distanceKm(a: Position, b: Position): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}

/** A rectangle of `width` × `depth` metres turned by `angle` radians, as a closed GeoJSON ring ([lon, lat]). */
export function rectangleRing(centre: Position, width: number, depth: number, angle: number): [number, number][] {
  const corners = [
    [-1, -1],
    [1, -1],
    [1, 1],
    [-1, 1],
    [-1, -1],
  ] as const;
  return corners.map(([x, y]) => {
    const east = (x * width * Math.cos(angle) - y * depth * Math.sin(angle)) / 2;
    const north = (x * width * Math.sin(angle) + y * depth * Math.cos(angle)) / 2;
    const p = offsetPosition(centre, east, north);
    return [p.lon, p.lat];
  });
}

/** An identifier made from a Polish name: `Most Świętokrzyski` → `most-swietokrzyski`. */
export const slugOf = (name: string) =>
  name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[łŁ]/g, 'l')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

export const pickDistrict = (random: Random, filter: (d: District) => boolean = () => true): District =>
  random.weighted(city.districts.filter(filter).map((d) => [d, d.population] as const));

/** The streets of a district: a fixed share of the city's list, the same on every run. */
export function streetsOf(d: District): readonly string[] {
  const offset = city.districts.indexOf(d) * 7;
  return Array.from({ length: 16 }, (_, i) => city.streets[(offset + i * 5) % city.streets.length]!);
}
