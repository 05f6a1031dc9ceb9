import { describe, expect, it } from 'vitest';
import { datasets } from '../../datasets/index.ts';
import { requestUrl } from '../../site/client/request-url.ts';
import { browserType, columnSql } from '../../site/client/parquet-table.ts';
import { conditionsOf, fileRanges, instantMs, mayMeet, scanMayRead, scansOf, statisticValue } from '../../site/client/scan-plan.ts';
import { csvOf, decimalText, timestampText, valueText } from '../../site/client/sql-result.ts';
import { endpointDocs } from '../../site/docs/endpoint-docs.ts';
import { exampleQuery, formEndpoint, queryTables, sqlExamples } from '../../site/docs/query.ts';

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
  it('writes decimals exactly, days in ISO form, timestamps as DuckDB does (with +00 when zoned), nested values as JSON', () => {
    expect(decimalText('-5', 2)).toBe('-0.05');
    expect(decimalText('130700000', 2)).toBe('1307000.00');
    expect(valueText(Date.UTC(2024, 1, 29), { typeId: 8 })).toBe('2024-02-29');
    expect(valueText(Date.UTC(2024, 1, 29, 10, 5), { typeId: 10 })).toBe('2024-02-29 10:05:00');
    expect(valueText(Date.UTC(2024, 1, 29, 10, 5), { typeId: 10, timezone: 'UTC' })).toBe('2024-02-29 10:05:00+00');
    expect(timestampText(Date.UTC(2024, 0, 1) + 500.25)).toBe('2024-01-01 00:00:00.50025');
    expect(valueText({ toJSON: () => ['a', 'b'] }, { typeId: 12 })).toBe('["a","b"]');
    expect(valueText(12n, { typeId: 2 })).toBe('12');
    expect(valueText(null, { typeId: 5 })).toBeNull();
  });

  it('writes CSV as /api/sql does: quoted only when needed, empty for NULL', () => {
    const result = {
      columns: ['a', 'b'],
      rowCount: 2,
      rows: () => [
        ['x,y', null],
        ['say "hi"', '1'],
      ],
    };
    expect(csvOf(result)).toBe('a,b\r\n"x,y",\r\n"say ""hi""",1\r\n');
  });

  it('keeps declared types DuckDB-WASM has offline, and JSON text for the rest', () => {
    expect(browserType({ name: 'p', type: 'DECIMAL(15,2)' })).toBe('DECIMAL(15,2)');
    expect(browserType({ name: 'j', type: 'JSON' })).toBe('VARCHAR');
    expect(browserType({ name: 'l', type: 'STRUCT("from" DOUBLE)[]' })).toBe('VARCHAR');
    // Instants are plain TIMESTAMP in UTC: DuckDB-WASM has no ICU offline, and needs it for time functions of TIMESTAMPTZ.
    expect(columnSql([{ name: 'at', type: 'TIMESTAMPTZ' }])).toBe('CAST("at" AS TIMESTAMP) AS "at"');
    expect(browserType({ name: 'at', type: 'TIMESTAMP WITH TIME ZONE' })).toBe('TIMESTAMP');
  });
});

describe('what a query reads, from DuckDB’s plan', () => {
  const types = new Map([
    ['counter_id', 'VARCHAR'],
    ['read_at', 'TIMESTAMP'],
    ['value', 'INTEGER'],
    ['from', 'VARCHAR'],
    ['price', 'DECIMAL(15,2)'],
  ]);
  const day = (text: string) => instantMs(text)!;

  it('reads the filters DuckDB pushes into a scan, and leaves the rest to DuckDB', () => {
    expect(conditionsOf("counter_id='it''s'", types)).toEqual([{ column: 'counter_id', op: '=', value: "it's" }]);
    expect(conditionsOf("read_at>='2024-05-01 00:00:00'::TIMESTAMP AND read_at<'2024-06-01 00:00:00'::TIMESTAMP", types)).toEqual([
      { column: 'read_at', op: '>=', value: Date.UTC(2024, 4, 1) },
      { column: 'read_at', op: '<', value: Date.UTC(2024, 5, 1) },
    ]);
    expect(conditionsOf("optional: counter_id IN ('a', 'b')", types)).toEqual([{ column: 'counter_id', op: 'in', values: ['a', 'b'] }]);
    expect(conditionsOf('value>3', types)).toEqual([{ column: 'value', op: '>', value: 3 }]);
    expect(conditionsOf(`"from"='x'`, types)).toEqual([{ column: 'from', op: '=', value: 'x' }]);
    // Not read: decimals, casts, ORs, functions. They prune nothing, and DuckDB still applies them.
    expect(conditionsOf("price>'1.00'::DECIMAL(15,2)", types)).toEqual([]);
    expect(conditionsOf("(CAST(read_at AS TIMESTAMP WITH TIME ZONE) >= '2024-04-30 22:00:00+00'::TIMESTAMP WITH TIME ZONE)", types)).toEqual([]);
    expect(conditionsOf("(counter_id='a' OR value>3)", types)).toEqual([]);
  });

  it('finds every scan of a table in the plan, with the columns it projects and filters on', () => {
    const plan = JSON.stringify([
      {
        name: 'HASH_JOIN',
        children: [
          { name: 'SEQ_SCAN ', children: [], extra_info: { Table: 'r', Projections: 'read_at', Filters: ["counter_id='x'"] } },
          { name: 'SEQ_SCAN ', children: [], extra_info: { Table: 'r', Projections: '' } },
          { name: 'SEQ_SCAN ', children: [], extra_info: { Table: 'other' } },
        ],
      },
    ]);
    const scans = scansOf(plan, new Map([['r', types]]));
    expect(scans.map((scan) => [scan.table, scan.columns && [...scan.columns].sort(), scan.conditions.length])).toEqual([
      ['r', ['counter_id', 'read_at'], 1],
      ['r', [], 0],
    ]);
  });

  it('skips a part only when a condition rules out every value its statistics allow', () => {
    const range = { min: day('2024-05-03'), max: day('2024-05-20') };
    expect(mayMeet({ column: 'read_at', op: '>=', value: day('2024-05-21') }, range)).toBe(false);
    expect(mayMeet({ column: 'read_at', op: '>=', value: day('2024-05-20') }, range)).toBe(true);
    expect(mayMeet({ column: 'read_at', op: '<', value: day('2024-05-03') }, range)).toBe(false);
    expect(mayMeet({ column: 'read_at', op: '<=', value: day('2024-05-03') }, range)).toBe(true);
    expect(mayMeet({ column: 'counter_id', op: 'in', values: ['a', 'z'] }, { min: 'b', max: 'y' })).toBe(false);
    expect(mayMeet({ column: 'counter_id', op: '=', value: 'c' }, { min: 'b', max: 'y' })).toBe(true);
    // Unknown or other-typed statistics rule out nothing.
    expect(mayMeet({ column: 'value', op: '=', value: 3 }, {})).toBe(true);
    expect(mayMeet({ column: 'value', op: '=', value: 3 }, { min: 'a', max: 'b' })).toBe(true);
    expect(statisticValue(new Date(Date.UTC(2024, 0, 1)), 'TIMESTAMP', 'max')).toBe(Date.UTC(2024, 0, 1) + 1);
    expect(statisticValue(12n, 'BIGINT', 'min')).toBe(12);
    expect(statisticValue(1.5, 'DECIMAL(15,2)', 'min')).toBeUndefined();
  });

  it('skips files by the catalogue: a partition by a whole value, and the time column’s range', () => {
    const partitionBy = [
      { name: 'counter', column: 'counter_id' },
      { name: 'year', column: 'read_at', part: 'year' },
    ];
    const file = {
      url: '/f',
      rows: 10,
      bytes: 100,
      partition: { counter: 'pulawska', year: '2024' },
      min: '2024-03-01T00:00:00.000Z',
      max: '2024-12-31T23:00:00.000Z',
    };
    const ranges = fileRanges(file, partitionBy, 'read_at', types);
    const scan = (conditions: Parameters<typeof mayMeet>[0][]) => ({ table: 'r', columns: new Set<string>(), conditions });
    expect(scanMayRead(scan([{ column: 'counter_id', op: '=', value: 'pulawska' }]), ranges)).toBe(true);
    expect(scanMayRead(scan([{ column: 'counter_id', op: '=', value: 'other' }]), ranges)).toBe(false);
    expect(scanMayRead(scan([{ column: 'read_at', op: '<', value: day('2024-03-01') }]), ranges)).toBe(false);
    expect(scanMayRead(scan([{ column: 'read_at', op: '>=', value: day('2024-12-31 23:00:00') }]), ranges)).toBe(true);
    expect(scanMayRead(scan([{ column: 'value', op: '=', value: 1 }]), ranges)).toBe(true);
  });

  it('offers examples of every time function DuckDB-WASM has offline, and a month of one partition value', () => {
    const catalogue = [
      {
        sqlName: 'bike_counter_readings',
        rows: 100,
        files: [{ rows: 100, partition: { counter: 'pulawska', year: '2025' }, min: '2025-01-01T00:00:00.000Z', max: '2025-09-30T21:00:00.000Z' }],
      },
      { sqlName: 'citybike_rides', rows: 50, files: [] },
      { sqlName: 'air_quality_readings', rows: 200, files: [] },
    ];
    const examples = sqlExamples(datasets, catalogue);
    const text = examples.map((example) => example.query).join('\n');
    for (const used of ["date_trunc('month'", 'year(', 'strftime(', '::DATE', 'count(*)']) expect(text).toContain(used);
    expect(examples.find((example) => example.kind === 'oneMonth')?.query).toBe(
      "SELECT read_at::DATE AS day, count(*) AS rows FROM bike_counter_readings\nWHERE counter_id = 'pulawska' AND read_at >= '2025-09-01' AND read_at < '2025-10-01'\nGROUP BY 1 ORDER BY 1;",
    );
    expect(sqlExamples(datasets).some((example) => example.kind === 'oneMonth')).toBe(false);
  });
});
