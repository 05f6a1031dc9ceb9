import { defineDataset } from '../define.ts';
import { defineResource } from '../vocabulary/resource.ts';
import { text } from '../../core/text.ts';
import { documentPaths, endpoints } from './endpoints.ts';
import { renderDictionary, renderProperty, renderPropertySummary, renderTransaction } from './render.ts';
import { dictionaryPayload, property, propertySummary, transaction } from './resources.ts';
import { parseDictionary, parseProperty, parseTransaction } from './parse.ts';
import { generate } from './sample.ts';
import * as tables from './tables.ts';
import { charts, map } from './figures.ts';

export const rcn = defineDataset({
  name: 'rcn',
  module: import.meta.url,
  title: text('Real-estate price register', 'Rejestr cen nieruchomości'),
  description: text(
    'Property transactions with their properties (parcels, buildings, units, addresses and geometry) and the code dictionaries the data uses.',
    'Transakcje nieruchomościami wraz z nieruchomościami (działki, budynki, lokale, adresy i geometria) oraz słowniki kodów używane w danych.',
  ),
  keywords: {
    en: ['real estate', 'property prices', 'property transactions', 'land and buildings', 'cadastre'],
    pl: ['nieruchomości', 'ceny nieruchomości', 'transakcje', 'grunty i budynki', 'kataster'],
  },
  themes: ['ECON', 'REGI'],
  tables,
  resources: {
    transaction: defineResource(tables.transactions, transaction, renderTransaction, { parse: parseTransaction }),
    propertySummary: defineResource(tables.properties, propertySummary, renderPropertySummary, { omits: ['parcels', 'buildings', 'units'] }),
    property: defineResource(tables.properties, property, renderProperty, { parse: parseProperty }),
    dictionary: defineResource(tables.dictionaries, dictionaryPayload, renderDictionary, { parse: parseDictionary }),
  },
  endpoints,
  // Transactions come whole in their list; properties' list leaves out parcels, buildings and
  // units, so each new or changed property is fetched on its own.
  crawl: [
    ...documentPaths.map((path) => ({ path })),
    { path: '/transactions', id: 'transactionGmlId' },
    { path: '/properties', id: 'propertyGmlId', detail: '/properties/{propertyGmlId}' },
  ],
  sample: generate,
  charts,
  map,
  // Deeds registered late and prices revised are what readers of a price register watch for.
  feed: { table: 'transactions', title: text('New and revised transactions', 'Nowe i poprawione transakcje'), record: text('transaction', 'transakcja') },
});
