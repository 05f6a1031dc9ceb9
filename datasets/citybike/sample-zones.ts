import { addDays, daysBetween } from '../../core/calendar.ts';
import type { Random } from '../vocabulary/random.ts';
import { city, distanceKm, pickDistrict, positionNear, streetsOf, type Position } from '../vocabulary/sample-city.ts';
import { defaultUntil, type SampleContext } from '../vocabulary/sample.ts';

/**
 * The sample bike share's zones: where they are, when they open and close (some only for a
 * summer), how popular they are, and how a ride draws its start and its destination among them.
 */

const landmarks = [
  'Metro Centrum',
  'Dworzec Centralny',
  'Plac Zbawiciela',
  'Rondo ONZ',
  'Plac Bankowy',
  'Metro Politechnika',
  'Plac Trzech Krzyży',
  'Uniwersytet Warszawski',
  'Metro Świętokrzyska',
  'Plac Konstytucji',
  'Most Poniatowskiego',
  'Stadion Narodowy',
  'Dworzec Wschodni',
  'Metro Dworzec Gdański',
  'Plac Wilsona',
  'Park Skaryszewski',
  'Pole Mokotowskie',
  'Metro Wilanowska',
  'Bulwary Wiślane',
  'Centrum Nauki Kopernik',
];

export interface PoolZone extends Position {
  readonly id: string;
  readonly name: string;
  readonly activeFrom: string;
  /** Last day in service, if the zone closes at all (it may be after the sample's today). */
  readonly closesAfter: string | null;
  readonly temporary: boolean;
  readonly popularity: number;
}

/** The zones a city ever has (a quarter more than are in service at once), each with its days in service. */
export function zonePool(context: SampleContext, inServiceAtOnce: number): PoolZone[] {
  const names = new Set<string>();
  const startYear = Number(context.start.slice(0, 4));
  const size = Math.round(inServiceAtOnce * 1.25);
  return Array.from({ length: size }, (_, i) => {
    const random = context.random('citybike', 'zone', i);
    const landmark = landmarks[i];
    const district = pickDistrict(random, (d) => d.population * d.priceLevel > 60);
    const place = landmark ? positionNear(random, city.centre, 3) : positionNear(random, district, district.radiusKm * 0.8);
    const [a, b] = [random.pick(streetsOf(district)), random.pick(streetsOf(district))].map((s) => s.replace(/^(ul|al|pl)\. /, ''));
    let name = landmark ?? `${a} / ${b}`;
    while (names.has(name)) name += ' II';
    names.add(name);
    // Every city has at least one temporary and one retired zone, even the tiny one.
    const kind =
      i === size - 1
        ? 'temporary'
        : i === size - 2
          ? 'retired'
          : random.weighted([
              ['founding', 75],
              ['added', 12],
              ['temporary', 6],
              ['retired', 7],
            ] as const);
    const founded = addDays(context.start, -random.int(30, 800));
    const someDay = addDays(context.start, random.int(0, daysBetween(context.start, i === size - 2 ? defaultUntil : '2026-12-31')));
    const summerYear = i === size - 1 ? Number(defaultUntil.slice(0, 4)) : random.int(startYear, 2026);
    const summer = `${summerYear}-05-${String(random.int(1, 28)).padStart(2, '0')}`;
    const [activeFrom, closesAfter] =
      kind === 'founding'
        ? [founded, null]
        : kind === 'added'
          ? [someDay, null]
          : kind === 'temporary'
            ? [summer, addDays(summer, random.int(30, 100))]
            : [founded, someDay];
    return {
      id: random.uuid(),
      name,
      activeFrom,
      closesAfter,
      temporary: kind === 'temporary',
      popularity: random.logNormal(landmark ? 2.5 : 1, 0.5),
      ...place,
    };
  });
}

export const inService = (zone: PoolZone, day: string) => zone.activeFrom <= day && (zone.closesAfter === null || day <= zone.closesAfter);

/** Cumulative weights for drawing zones, remade only when the zones in service change. */
export class ZoneDraw {
  private readonly cumulative: Float64Array;
  private readonly neighbours = new Map<number, Float64Array>();
  constructor(readonly zones: readonly PoolZone[]) {
    this.cumulative = cumulate(zones.map((z) => z.popularity));
  }
  start(random: Random): number {
    return search(this.cumulative, random.next());
  }
  /** A destination: popular zones near the start are likelier. */
  finish(from: number, random: Random): number {
    let weights = this.neighbours.get(from);
    if (!weights) {
      const a = this.zones[from]!;
      weights = cumulate(this.zones.map((b, i) => (i === from ? 0 : b.popularity * Math.exp(-distanceKm(a, b) / 2.2))));
      this.neighbours.set(from, weights);
    }
    return search(weights, random.next());
  }
}

export function cumulate(weights: readonly number[]): Float64Array {
  const out = new Float64Array(weights.length);
  let sum = 0;
  weights.forEach((w, i) => (out[i] = sum += w));
  return out.map((v) => v / sum);
}

export function search(cumulative: Float64Array, u: number): number {
  let lo = 0,
    hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid]! <= u) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
