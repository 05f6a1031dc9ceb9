import { describe, expect, it } from 'vitest';
import { datasets } from '../../datasets/index.ts';
import { datasetContract } from '../fixtures/dataset-contract.ts';

/** Spec section 4: every endpoint of v1. */
const specPaths = [
  '/api/public/rcn/transactions',
  '/api/public/rcn/transactions/{transactionGmlId}',
  '/api/public/rcn/properties',
  '/api/public/rcn/properties/{propertyGmlId}',
  '/api/public/rcn/dictionaries',
  ...[
    'transaction-types',
    'market-types',
    'party-types',
    'property-types',
    'property-right-types',
    'land-uses',
    'local-plan-designations',
    'building-types',
    'unit-functions',
  ].map((name) => `/api/public/rcn/dictionaries/${name}`),
  '/api/public/citybike/bikes',
  '/api/public/citybike/zones',
  '/api/public/citybike/seasons',
  '/api/public/citybike/rides',
  '/api/public/citybike/live',
  '/api/public/bike-counter/counters',
  '/api/public/bike-counter/counters/{counterId}/readings',
  '/api/public/air-quality/stations',
  '/api/public/air-quality/sensors',
  '/api/public/air-quality/history/{stationId}/{sensorCode}',
  '/api/public/air-quality/live',
  '/api/public/air-quality/live/{deviceId}',
];

/** Spec section 4: the query parameters of each endpoint that has any. */
const specParams: Record<string, string[]> = {
  '/api/public/rcn/transactions': [
    'limit',
    'offset',
    'transactionIdentifier',
    'documentDateFrom',
    'documentDateTo',
    'grossPriceFrom',
    'grossPriceTo',
    'transactionType',
    'marketType',
    'sellerPartyType',
    'buyerPartyType',
  ],
  '/api/public/rcn/properties': [
    'limit',
    'offset',
    'grossPriceFrom',
    'grossPriceTo',
    'landAreaFrom',
    'landAreaTo',
    'propertyType',
    'propertyRightType',
    'transactionGmlId',
    'parcelIdentifier',
    'address',
    'bbox',
  ],
  '/api/public/citybike/rides': ['from', 'to', 'timezone', 'page', 'pageSize'],
  '/api/public/bike-counter/counters/{counterId}/readings': ['from', 'to', 'timezone'],
  '/api/public/air-quality/history/{stationId}/{sensorCode}': ['from', 'to', 'timezone'],
};

describe('the data-set registry', () => {
  it('declares every endpoint of spec section 4, and marks each endpoint beyond it as an extension', () => {
    const declared = datasets.flatMap((d) => d.endpoints);
    expect(declared.map((e) => e.fullPath)).toEqual(expect.arrayContaining(specPaths));
    for (const endpoint of declared) {
      if (specPaths.includes(endpoint.fullPath)) expect(endpoint.extension, endpoint.fullPath).toBeUndefined();
      else expect(endpoint.extension?.en, `${endpoint.fullPath} is not in the spec`).toBeTruthy();
    }
  });

  it('declares the spec parameters of every endpoint, and version on all of them', () => {
    const declared = datasets.flatMap((d) => d.endpoints);
    for (const [path, names] of Object.entries(specParams)) {
      const endpoint = declared.find((e) => e.fullPath === path)!;
      expect(Object.keys(endpoint.params), path).toEqual(expect.arrayContaining(names));
    }
    for (const endpoint of declared) expect(Object.keys(endpoint.params)).toContain('version');
  });
});

describe.each(datasets.map((d) => [d.name, d] as const))('data set %s', (_, dataset) => datasetContract(dataset));

describe('defineDataset', () => {
  const base = datasets.find((d) => d.name === 'bike-counter')!;
  const wrong: [string, object, string][] = [
    ['a resource it does not have', { kind: 'list', resource: 'nope' }, 'names resource "nope", which the data set does not declare'],
    [
      'a column its table lacks',
      { kind: 'item', resource: 'counter', param: 'counterId', match: ['nope'] },
      'names column "nope", which table counters does not have',
    ],
    [
      'a parameter the endpoint lacks',
      { kind: 'item', resource: 'counter', param: 'nope', match: ['id'] },
      'needs parameter "nope", which the endpoint does not declare',
    ],
    [
      'no source for a path parameter (a custom answer)',
      { kind: 'custom', reads: ['counter'], answer: async () => ({}) },
      'does not say where the values of path parameter {counterId} come from (each.counterId)',
    ],
    [
      'a column its table lacks as the source of a path parameter',
      { kind: 'custom', reads: ['counter'], answer: async () => ({}), each: { counterId: { resource: 'counter', column: 'nope' } } },
      'names column "nope", which table counters does not have',
    ],
  ];

  it.each(wrong)('refuses an answer that names %s, saying what to fix', async (_, answer, message) => {
    const { defineDataset } = await import('../../datasets/define.ts');
    const { text } = await import('../../core/text.ts');
    const endpoint = base.endpoints.find((e) => e.path === '/counters/{counterId}')!;
    expect(() =>
      defineDataset({
        name: 'broken',
        module: import.meta.url,
        title: text('x', 'x'),
        description: text('x', 'x'),
        keywords: { en: [], pl: [] },
        themes: [],
        tables: { counters: base.tables.counters!, readings: base.tables.readings! },
        resources: { counter: { table: base.tables.counters!, schema: endpoint.response, render: () => ({}) } },
        endpoints: [{ ...endpoint, params: { counterId: endpoint.params.counterId! }, answer: answer as never }],
        crawl: [],
        sample: () => {},
      }),
    ).toThrow(`/api/public/broken/counters/{counterId}: its answer ${message}`);
  });

  const wrongSteps: [string, object, string][] = [
    ['an endpoint it does not declare', { path: '/nope' }, 'crawls /nope, which the data set does not declare'],
    [
      'an endpoint of a kind no pull crawls',
      { path: '/counters/{counterId}' },
      'crawls /counters/{counterId}, which is answered as item: a pull cannot crawl that kind',
    ],
    [
      'a span column the parent lacks',
      { path: '/counters/{counterId}/readings', field: 'readings', days: 92, span: { from: 'nope', to: 'active_to' } },
      'reads column "nope" of counter, which its table does not have',
    ],
  ];

  it.each(wrongSteps)('refuses a crawl step that names %s', async (_, step, message) => {
    const { defineDataset } = await import('../../datasets/define.ts');
    const { defineResource } = await import('../../datasets/vocabulary/resource.ts');
    const tables = await import('../../datasets/bike-counter/tables.ts');
    const { endpoints } = await import('../../datasets/bike-counter/endpoints.ts');
    const counter = base.resources.counter!,
      reading = base.resources.reading!;
    expect(() =>
      defineDataset({
        ...base,
        name: 'broken',
        tables,
        resources: {
          counter: defineResource(tables.counters, counter.schema, counter.render as never, { parse: counter.parse as never }),
          reading: defineResource(tables.readings, reading.schema, reading.render as never, { parse: reading.parse as never }),
        },
        endpoints,
        crawl: [step as never],
      }),
    ).toThrow(`broken: its crawl plan ${message}`);
  });
});

describe('a table declaration', () => {
  it('refuses a partition named like a column, saying what to call it', async () => {
    const { defineDataset } = await import('../../datasets/define.ts');
    const base = datasets.find((d) => d.name === 'bike-counter')!;
    const tables = await import('../../datasets/bike-counter/tables.ts');
    const readings = { ...tables.readings, partitionBy: [{ name: 'counter_id', column: 'counter_id' as const }] };
    expect(() => defineDataset({ ...base, name: 'broken', tables: { ...tables, readings }, resources: {}, endpoints: [], crawl: [] })).toThrow(
      'broken/readings: partition "counter_id" is named like a column, so a reader of the table\'s folder would see two columns by that name; name it apart, e.g. "counter"',
    );
  });
});

describe('a data set declaration', () => {
  it('refuses the name of the downloads’ CSV folder, which would mix its files with every table’s CSV', async () => {
    const { defineDataset } = await import('../../datasets/define.ts');
    const base = datasets.find((d) => d.name === 'bike-counter')!;
    const tables = await import('../../datasets/bike-counter/tables.ts');
    expect(() => defineDataset({ ...base, name: 'csv', tables, resources: {}, endpoints: [], crawl: [] })).toThrow(
      'data set name "csv" is taken: the downloads keep their CSV files under downloads/csv/',
    );
  });
});
