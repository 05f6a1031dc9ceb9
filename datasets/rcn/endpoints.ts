import { z } from 'zod';
import { filter } from '../answers/index.ts';
import type { EndpointSpec } from '../define.ts';
import { doc } from '../vocabulary/field.ts';
import * as param from '../vocabulary/param.ts';
import { text } from '../../core/text.ts';
import { dictionaries } from './dictionaries.ts';
import { dictionaryPayload, pagination, property, propertySummary, transaction } from './resources.ts';

const code = (en: string, pl: string) => param.integer({ min: 0, max: 32_767 }, en, pl);
const grossPriceFrom = param.decimal('Minimum gross price (decimal), inclusive.', 'Minimalna cena brutto (liczba dziesiętna), włącznie.');
const grossPriceTo = param.decimal('Maximum gross price (decimal), inclusive.', 'Maksymalna cena brutto (liczba dziesiętna), włącznie.');

const page = <T extends z.ZodType>(item: T) =>
  z.object({
    items: doc(z.array(item), 'The records of this page, in a stable order.', 'Rekordy tej strony, w stałej kolejności.'),
    pagination: doc(pagination, 'Where this page sits in the whole list.', 'Położenie tej strony w całej liście.'),
  });

export const endpoints: readonly EndpointSpec[] = [
  {
    path: '/transactions',
    summary: text('Bounded, filtered list of transactions', 'Ograniczona, filtrowana lista transakcji'),
    params: {
      transactionIdentifier: param.text('Transaction identifier assigned in the register, exactly.', 'Oznaczenie transakcji nadane w rejestrze, dokładnie.'),
      documentDateFrom: param.day('Earliest document date, YYYY-MM-DD, inclusive.', 'Najwcześniejsza data dokumentu, RRRR-MM-DD, włącznie.'),
      documentDateTo: param.day('Latest document date, YYYY-MM-DD, inclusive.', 'Najpóźniejsza data dokumentu, RRRR-MM-DD, włącznie.'),
      grossPriceFrom,
      grossPriceTo,
      transactionType: code('Transaction type code (dictionary transaction-types).', 'Kod rodzaju transakcji (słownik transaction-types).'),
      marketType: code('Market type code (dictionary market-types).', 'Kod rodzaju rynku (słownik market-types).'),
      sellerPartyType: code('Seller party type code (dictionary party-types).', 'Kod rodzaju strony sprzedającej (słownik party-types).'),
      buyerPartyType: code('Buyer party type code (dictionary party-types).', 'Kod rodzaju strony kupującej (słownik party-types).'),
    },
    response: page(transaction),
    answer: {
      kind: 'page',
      resource: 'transaction',
      filters: {
        transactionIdentifier: filter.equals('transaction_identifier'),
        documentDateFrom: filter.atLeast('document_date'),
        documentDateTo: filter.atMost('document_date'),
        grossPriceFrom: filter.atLeast('gross_price'),
        grossPriceTo: filter.atMost('gross_price'),
        transactionType: filter.equals('transaction_type_code'),
        marketType: filter.equals('market_type_code'),
        sellerPartyType: filter.equals('seller_party_type_code'),
        buyerPartyType: filter.equals('buyer_party_type_code'),
      },
    },
  },
  {
    path: '/transactions/{transactionGmlId}',
    summary: text('One transaction with its property references', 'Jedna transakcja z odwołaniami do nieruchomości'),
    params: { transactionGmlId: param.text('Transaction GML identifier.', 'Identyfikator GML transakcji.', { required: true }) },
    response: transaction,
    answer: { kind: 'item', resource: 'transaction', param: 'transactionGmlId', match: ['transaction_gml_id'] },
  },
  {
    path: '/properties',
    summary: text('Bounded, filtered list of properties', 'Ograniczona, filtrowana lista nieruchomości'),
    params: {
      grossPriceFrom,
      grossPriceTo,
      landAreaFrom: param.decimal('Minimum land area in m², inclusive.', 'Minimalna powierzchnia gruntu w m², włącznie.'),
      landAreaTo: param.decimal('Maximum land area in m², inclusive.', 'Maksymalna powierzchnia gruntu w m², włącznie.'),
      propertyType: code('Property type code (dictionary property-types).', 'Kod rodzaju nieruchomości (słownik property-types).'),
      propertyRightType: code('Property right type code (dictionary property-right-types).', 'Kod rodzaju prawa (słownik property-right-types).'),
      transactionGmlId: param.text(
        'Only the properties of this transaction (transaction GML identifier).',
        'Tylko nieruchomości tej transakcji (identyfikator GML transakcji).',
      ),
      parcelIdentifier: param.text(
        'Full cadastral parcel identifier, exactly, e.g. 146510_8.0001.123/4.',
        'Pełny identyfikator działki ewidencyjnej, dokładnie, np. 146510_8.0001.123/4.',
      ),
      address: param.text(
        'Part of a locality, street or building number of any of the property’s addresses; case-insensitive.',
        'Fragment miejscowości, ulicy lub numeru porządkowego dowolnego adresu nieruchomości; bez rozróżniania wielkości liter.',
        { maxLength: 200 },
      ),
      bbox: param.bbox(
        'EPSG:4326 bounding box minLongitude,minLatitude,maxLongitude,maxLatitude; properties whose parcels, buildings or units intersect it.',
        'Prostokąt w EPSG:4326 minDługość,minSzerokość,maxDługość,maxSzerokość; nieruchomości, których działki, budynki lub lokale go przecinają.',
      ),
    },
    response: page(propertySummary),
    answer: {
      kind: 'page',
      resource: 'propertySummary',
      filters: {
        grossPriceFrom: filter.atLeast('gross_price'),
        grossPriceTo: filter.atMost('gross_price'),
        landAreaFrom: filter.atLeast('land_area_m2'),
        landAreaTo: filter.atMost('land_area_m2'),
        propertyType: filter.equals('property_type_code'),
        propertyRightType: filter.equals('property_right_type_code'),
        transactionGmlId: filter.listContains('transaction_ids'),
        parcelIdentifier: filter.listContains('parcel_ids'),
        address: filter.partOfAny('address_parts'),
        bbox: filter.intersects(['min_lon', 'min_lat', 'max_lon', 'max_lat'], 'outlines'),
      },
    },
  },
  {
    path: '/properties/{propertyGmlId}',
    summary: text(
      'One property with related transactions, parcels, buildings and units',
      'Jedna nieruchomość z powiązanymi transakcjami, działkami, budynkami i lokalami',
    ),
    params: { propertyGmlId: param.text('Property GML identifier.', 'Identyfikator GML nieruchomości.', { required: true }) },
    response: property,
    answer: { kind: 'item', resource: 'property', param: 'propertyGmlId', match: ['property_gml_id'] },
  },
  {
    path: '/dictionaries',
    summary: text('The list of dictionaries used by the data', 'Lista słowników używanych w danych'),
    response: dictionaryPayload,
    answer: { kind: 'document', resource: 'dictionary', where: { path: '/dictionaries' } },
  },
  ...dictionaries.map(
    (dictionary): EndpointSpec => ({
      path: `/dictionaries/${dictionary.name}`,
      summary: text(`Codes, canonical values and labels: ${dictionary.label.en}`, `Kody, wartości kanoniczne i etykiety: ${dictionary.label.pl}`),
      response: dictionaryPayload,
      answer: { kind: 'document', resource: 'dictionary', where: { path: `/dictionaries/${dictionary.name}` } },
    }),
  ),
];

/** The dictionary list and the nine dictionaries: documents, fetched whole each pull. */
export const documentPaths = endpoints.filter((endpoint) => endpoint.answer.kind === 'document').map((endpoint) => endpoint.path);
