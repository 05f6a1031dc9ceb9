import { describe, expect, it } from 'vitest';
import { datasets } from '../../datasets/index.ts';
import { requestUrl } from '../../site/client/request-url.ts';
import { browserType, columnSql } from '../../site/client/parquet-table.ts';
import { csvOf, decimalText, valueText } from '../../site/client/sql-result.ts';
import { endpointDocs } from '../../site/docs/endpoint-docs.ts';
import { exampleQuery, formEndpoint, queryTables } from '../../site/docs/query.ts';

/** What the query page is made of, without a browser: its model of the registry and its pure helpers. */

describe('the query page’s model', () => {
  const { docs } = endpointDocs(datasets);

  it('lists every table of every data set under its SQL name, with its declared columns', () => {
    const tables = queryTables(datasets);
    expect(tables.map((table) => table.name)).toEqual(datasets.flatMap((d) => Object.keys(d.tables).map((t) => `${d.sqlName}_${t}`)));
    expect(tables.every((table) => table.columns.length > 0 && table.doc.en && table.doc.pl)).toBe(true);
    expect(exampleQuery(datasets)).toMatch(/^SELECT \* FROM \w+/);
  });

  it('has a field per parameter of every endpoint, typed by its schema, with both languages’ help', () => {
    for (const doc of docs.values()) {
      const form = formEndpoint(doc);
      expect(form.fields.map((field) => field.name)).toEqual(doc.params.map((param) => param.name));
      for (const field of form.fields) expect(field.description.en && field.description.pl, `${form.path} ${field.name}`).toBeTruthy();
    }
    const transactions = formEndpoint(docs.get('/api/public/rcn/transactions')!);
    const limit = transactions.fields.find((field) => field.name === 'limit')!;
    expect(limit).toMatchObject({ input: 'number', min: 1, max: 100, placeholder: '100', required: false });
    expect(transactions.fields.find((field) => field.name === 'documentDateFrom')).toMatchObject({ input: 'date' });
    expect(transactions.fields.find((field) => field.name === 'version')).toMatchObject({ input: 'choice', options: ['v1'] });
    const rides = formEndpoint(docs.get('/api/public/citybike/rides')!);
    expect(rides.fields.filter((field) => field.required).map((field) => field.name)).toEqual(['from', 'to']);
  });
});

describe('the request URL the v1 form builds', () => {
  it('fills path parameters, keeps placeholders while empty and adds only query values given', () => {
    const fields = [
      { name: 'stationId', in: 'path', value: 'a b' },
      { name: 'sensorCode', in: 'path', value: '' },
      { name: 'from', in: 'query', value: '2024-01-01' },
      { name: 'timezone', in: 'query', value: '' },
      { name: 'bbox', in: 'query', value: '20.9,52.2,21,52.3' },
    ] as const;
    expect(requestUrl('/', '/api/public/air-quality/history/{stationId}/{sensorCode}', fields)).toBe(
      '/api/public/air-quality/history/a%20b/{sensorCode}?from=2024-01-01&bbox=20.9,52.2,21,52.3',
    );
    expect(requestUrl('/odsnap/', '/api/public/citybike/zones', [])).toBe('/odsnap/api/public/citybike/zones');
  });
});

describe('DuckDB-WASM values as text', () => {
  it('writes decimals exactly, days and instants in ISO form, nested values as JSON', () => {
    expect(decimalText('-5', 2)).toBe('-0.05');
    expect(decimalText('130700000', 2)).toBe('1307000.00');
    expect(valueText(Date.UTC(2024, 1, 29), { typeId: 8 })).toBe('2024-02-29');
    expect(valueText(Date.UTC(2024, 1, 29, 10, 5), { typeId: 10 })).toBe('2024-02-29T10:05:00.000Z');
    expect(valueText({ toJSON: () => ['a', 'b'] }, { typeId: 12 })).toBe('["a","b"]');
    expect(valueText(12n, { typeId: 2 })).toBe('12');
    expect(valueText(null, { typeId: 5 })).toBeNull();
  });

  it('writes CSV as /api/sql does: quoted only when needed, empty for NULL', () => {
    const result = { columns: ['a', 'b'], rowCount: 2, rows: () => [['x,y', null], ['say "hi"', '1']] };
    expect(csvOf(result)).toBe('a,b\r\n"x,y",\r\n"say ""hi""",1\r\n');
  });

  it('keeps declared types DuckDB-WASM has offline, and JSON text for the rest', () => {
    expect(browserType({ name: 'p', type: 'DECIMAL(15,2)' })).toBe('DECIMAL(15,2)');
    expect(browserType({ name: 'j', type: 'JSON' })).toBe('VARCHAR');
    expect(browserType({ name: 'l', type: 'STRUCT("from" DOUBLE)[]' })).toBe('VARCHAR');
    expect(columnSql([{ name: 'at', type: 'TIMESTAMPTZ' }])).toBe('CAST("at" AS TIMESTAMPTZ) AS "at"');
  });
});
