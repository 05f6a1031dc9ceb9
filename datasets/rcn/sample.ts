import type { RowOf } from '../../core/table.ts';
import { addDays, dayToUtcMs, eachDay, weekdayOf } from '../../core/calendar.ts';
import type { Random } from '../vocabulary/random.ts';
import { BASE_URL_TOKEN } from '../vocabulary/render.ts';
import { city, pickDistrict } from '../vocabulary/sample-city.ts';
import type { SampleContext, SampleGenerator, Scale } from '../vocabulary/sample.ts';
import { dictionaries, marketTypes, partyTypes, termOf, transactionTypes } from './dictionaries.ts';
import { dictionaryPath } from './render.ts';
import { blockOf } from './sample-block.ts';
import { buildingProperty, commercialUnit, flat, flatPriceLevel, garage, house, plot, type PropertyDraft } from './sample-property.ts';
import type * as tables from './tables.ts';

/**
 * The sample price register. Deeds are signed on working days and reach the register weeks later
 * (`idRCN.versionId`), so the newest weeks fill in as the sample's "today" moves on. Every deed
 * draws from its own random stream, keyed by its day and number.
 */

type TransactionRow = RowOf<typeof tables.transactions.columns>;

const sizes: Record<Scale, { deedsPerWorkday: number; blocksPerDistrict: number }> = {
  tiny: { deedsPerWorkday: 0.8, blocksPerDistrict: 10 },
  small: { deedsPerWorkday: 4.2, blocksPerDistrict: 60 },
  city: { deedsPerWorkday: 139, blocksPerDistrict: 800 },
  region: { deedsPerWorkday: 556, blocksPerDistrict: 3200 },
};

/** Deeds per month relative to the year's average. */
const monthlyActivity = [0.8, 0.9, 1.05, 1.05, 1.05, 1.05, 0.95, 0.9, 1.0, 1.1, 1.05, 1.1];

const notaries = [
  'KOWALSKA ANNA',
  'NOWAK PIOTR',
  'WIŚNIEWSKA MAGDALENA',
  'WÓJCIK TOMASZ',
  'KOWALCZYK EWA',
  'KAMIŃSKI MAREK',
  'LEWANDOWSKA JOANNA',
  'ZIELIŃSKI ANDRZEJ',
  'SZYMAŃSKA KATARZYNA',
  'WOŹNIAK PAWEŁ',
  'DĄBROWSKI JAN',
  'KOZŁOWSKA AGNIESZKA',
  'JANKOWSKI MICHAŁ',
  'MAZUR BARBARA',
  'KWIATKOWSKI ROBERT',
  'KRAWCZYK MONIKA',
  'PIOTROWSKI KRZYSZTOF',
  'GRABOWSKA ALEKSANDRA',
  'NOWAKOWSKI ADAM',
  'PAWŁOWSKA DOROTA',
  'MICHALSKI GRZEGORZ',
  'NOWICKA IWONA',
  'ADAMCZYK JACEK',
  'DUDEK ELŻBIETA',
];

type Kind = 'flat-primary' | 'flat-secondary' | 'house' | 'plot' | 'building' | 'commercial-unit';
const kinds = [
  ['flat-primary', 27],
  ['flat-secondary', 43],
  ['house', 9],
  ['plot', 13],
  ['building', 3],
  ['commercial-unit', 5],
] as const;

interface Deal {
  readonly transactionType: number;
  readonly market: number;
  readonly seller: number;
  readonly buyer: number;
  readonly properties: readonly PropertyDraft[];
}

function dealOf(kind: Kind, random: Random, context: SampleContext, day: string): Deal {
  const blocks = sizes[context.scale].blocksPerDistrict;
  const urban = pickDistrict(random, (d) => !d.suburban);
  const anywhere = pickDistrict(random);
  const suburb = pickDistrict(random, (d) => d.suburban || d.priceLevel < 0.95);
  switch (kind) {
    case 'flat-primary': {
      const project = blockOf(context, urban, `project/${day.slice(0, 4)}/${Math.floor(Number(day.slice(5, 7)) / 4)}/${random.int(0, 2)}`);
      const drafts = [flat(random, context, day, project, urban, true)];
      if (random.chance(0.3)) drafts.push(garage(random, project, urban, true));
      return { transactionType: 1, market: 1, seller: 4, buyer: random.chance(0.92) ? 3 : 4, properties: drafts };
    }
    case 'flat-secondary': {
      const block = blockOf(context, anywhere, `old/${random.int(0, blocks - 1)}`);
      const drafts = [flat(random, context, day, block, anywhere, false)];
      if (random.chance(0.1)) drafts.push(garage(random, block, anywhere, false));
      const [transactionType, seller, buyer] = random.weighted([
        [[1, 3, 3], 80],
        [[1, 3, 4], 7],
        [[1, 4, 3], 7],
        [[6, 2, 3], 3],
        [[4, 3, 3], 1.5],
        [[2, 2, 3], 1.5],
      ] as const);
      if (transactionType === 6) return { transactionType, market: 2, seller, buyer, properties: drafts.map((d) => discounted(d, random.between(0.05, 0.2))) };
      if (transactionType === 4) return { transactionType, market: 2, seller, buyer, properties: drafts.map((d) => discounted(d, random.between(0.65, 0.85))) };
      return { transactionType, market: 2, seller, buyer, properties: drafts };
    }
    case 'house': {
      const developer = random.chance(0.1);
      return { transactionType: 1, market: developer ? 1 : 2, seller: developer ? 4 : 3, buyer: 3, properties: [house(random, suburb, developer)] };
    }
    case 'plot': {
      const [transactionType, seller, buyer] = random.weighted([
        [[1, 3, 3], 72],
        [[1, 4, 4], 8],
        [[3, 2, 3], 8],
        [[3, 1, 4], 4],
        [[5, 3, 2], 4],
        [[2, 2, 3], 4],
      ] as const);
      const drafts = [plot(random, suburb)];
      if (random.chance(0.08)) drafts.push(plot(random, suburb));
      return { transactionType, market: 2, seller, buyer, properties: drafts };
    }
    case 'building': {
      const [transactionType, seller] = random.weighted([
        [[1, 4], 60],
        [[1, 3], 25],
        [[3, 2], 15],
      ] as const);
      return { transactionType, market: 2, seller, buyer: 4, properties: [buildingProperty(random, anywhere, seller === 4)] };
    }
    case 'commercial-unit': {
      const primary = random.chance(0.4);
      const block = blockOf(context, urban, `old/${random.int(0, blocks - 1)}`);
      return {
        transactionType: 1,
        market: primary ? 1 : 2,
        seller: primary ? 4 : random.pick([3, 4]),
        buyer: random.pick([3, 4]),
        properties: [commercialUnit(random, day, block, urban, primary)],
      };
    }
  }
}

/** The same property sold below its value (a discount, an enforcement sale). */
function discounted(draft: PropertyDraft, factor: number): PropertyDraft {
  const priceCents = Math.round((draft.priceCents * factor) / 100) * 100;
  return { ...draft, priceCents, row: { ...draft.row, gross_price: (priceCents / 100).toFixed(2) }, vatCents: null };
}

/** When a deed enters the register, and the identifiers it gets there. Drawn first from the deed's stream. */
function registrationOf(random: Random, day: string) {
  const lagDays = Math.min(60, Math.max(5, Math.round(random.logNormal(18, 0.45))));
  const at = dayToUtcMs(addDays(day, lagDays)) + random.int(7 * 3600, 17 * 3600) * 1000;
  const versionId = new Date(at).toISOString().replace('.000Z', 'Z');
  const localId = random.uuid();
  return { at, versionId, localId, gmlId: `${city.registerNamespace}_${localId}_${versionId.replaceAll(':', '-')}` };
}

type Registration = ReturnType<typeof registrationOf>;

function documentOf(random: Random, deal: Deal, day: string) {
  const year = day.slice(0, 4);
  const enforcement = deal.transactionType === 4;
  return {
    document_id: `${city.registerNamespace}_${random.uuid()}`,
    document_identifier: enforcement ? `KM ${random.int(100, 9999)}/${year.slice(2)}` : `Rep. A nr ${random.int(100, 15_000)}/${year}`,
    document_date: day,
    document_creator: enforcement ? 'KOMORNIK SĄDOWY PRZY SĄDZIE REJONOWYM DLA WARSZAWY' : random.pick(notaries),
  };
}

const term = <N extends string>(name: N, dictionary: typeof marketTypes, code: number) =>
  ({ [`${name}_code`]: code, [`${name}_value`]: termOf(dictionary, code).value }) as Record<`${N}_code`, number> & Record<`${N}_value`, string>;

function transactionRow(registration: Registration, number: string, day: string, deal: Deal, propertyIds: string[], random: Random): TransactionRow {
  const cents = deal.properties.reduce((sum, p) => sum + p.priceCents, 0);
  const vats = deal.properties.map((p) => p.vatCents).filter((v): v is number => v !== null);
  return {
    transaction_gml_id: registration.gmlId,
    transaction_identifier: number,
    id_rcn_namespace: city.registerNamespace,
    id_rcn_local_id: registration.localId,
    id_rcn_version_id: registration.versionId,
    ...documentOf(random, deal, day),
    ...term('transaction_type', transactionTypes, deal.transactionType),
    ...term('market_type', marketTypes, deal.market),
    ...term('seller_party_type', partyTypes, deal.seller),
    ...term('buyer_party_type', partyTypes, deal.buyer),
    gross_price: (cents / 100).toFixed(2),
    vat_amount: vats.length ? (vats.reduce((a, b) => a + b, 0) / 100).toFixed(2) : null,
    currency: 'PLN',
    property_ids: propertyIds,
  };
}

/** A flat bought new and sold again a few years later: decided when it is first sold. */
interface Resale {
  /** The resale's own stream, already past its registration draw. */
  readonly random: Random;
  readonly day: string;
  readonly registration: Registration;
  readonly propertyId: string;
  readonly draft: PropertyDraft;
  readonly firstSoldOn: string;
}

function dictionaryPayloads(): { path: string; payload: unknown }[] {
  const link = (name: string) => `${BASE_URL_TOKEN}${dictionaryPath(name)}`;
  return [
    {
      path: '/dictionaries',
      payload: { items: dictionaries.map((d) => ({ name: d.name, uri: link(d.name), label: d.label, termCount: d.terms.length })) },
    },
    ...dictionaries.map((d) => ({
      path: `/dictionaries/${d.name}`,
      payload: {
        name: d.name,
        uri: link(d.name),
        label: d.label,
        items: d.terms.map((t) => ({ code: t.code, value: t.value, termUri: `${link(d.name)}#code-${t.code}`, label: t.label })),
      },
    })),
  ];
}

export const generate: SampleGenerator<typeof tables> = (context, out) => {
  for (const row of dictionaryPayloads()) out.dictionaries.write(row);
  const registered = (r: Registration) => r.at < context.now;
  const resales = new Map<string, Resale[]>();
  const numbers = new Map<string, number>();
  const nextNumber = (day: string) => {
    const year = day.slice(0, 4);
    const n = (numbers.get(year) ?? 0) + 1;
    numbers.set(year, n);
    return `${year}/${n}`;
  };

  const sell = (day: string, random: Random, registration: Registration, deal: Deal, propertyIds: string[]) => {
    const number = nextNumber(day);
    if (registered(registration)) out.transactions.write(transactionRow(registration, number, day, deal, propertyIds, random));
  };

  for (const day of eachDay(context.start, context.until)) {
    const weekday = weekdayOf(day);
    const rate = sizes[context.scale].deedsPerWorkday * monthlyActivity[Number(day.slice(5, 7)) - 1]! * (weekday < 5 ? 1 : weekday === 5 ? 0.05 : 0);
    const deeds = context.random('rcn', 'deeds', day).poisson(rate);
    for (let i = 0; i < deeds; i++) {
      const random = context.random('rcn', 'deed', day, i);
      const registration = registrationOf(random, day);
      const kind = random.weighted(kinds);
      const deal = dealOf(kind, random, context, day);
      const propertyIds = deal.properties.map(() => `${city.registerNamespace}_${random.uuid()}_${registration.versionId.replaceAll(':', '-')}`);
      deal.properties.forEach((draft, k) => {
        const transactionIds = [registration.gmlId];
        if (kind === 'flat-primary' && k === 0 && random.chance(0.04)) {
          const resaleDay = addDays(day, random.int(365, 1460));
          const resaleRandom = context.random('rcn', 'resale', propertyIds[k]!);
          const resale: Resale = {
            random: resaleRandom,
            day: resaleDay,
            registration: registrationOf(resaleRandom, resaleDay),
            propertyId: propertyIds[k]!,
            draft,
            firstSoldOn: day,
          };
          if (resaleDay <= context.until) resales.set(resaleDay, [...(resales.get(resaleDay) ?? []), resale]);
          if (registered(resale.registration)) transactionIds.push(resale.registration.gmlId);
        }
        if (registered(registration)) out.properties.write({ ...draft.row, property_gml_id: propertyIds[k]!, transaction_ids: transactionIds });
      });
      sell(day, random, registration, deal, propertyIds);
    }
    for (const resale of resales.get(day) ?? []) {
      const random = resale.random;
      const growth = flatPriceLevel(day) / flatPriceLevel(resale.firstSoldOn);
      const priceCents = Math.round((resale.draft.priceCents * growth * random.logNormal(1, 0.08)) / 100_000) * 100_000;
      const draft: PropertyDraft = { ...resale.draft, priceCents, vatCents: null };
      const deal: Deal = { transactionType: 1, market: 2, seller: 3, buyer: 3, properties: [draft] };
      sell(day, random, resale.registration, deal, [resale.propertyId]);
    }
    resales.delete(day);
  }
};
