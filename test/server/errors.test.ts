import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../fixtures/server.ts';
import { raw } from '../fixtures/raw-http.ts';

let server: TestServer;
beforeAll(async () => (server = await startTestServer()));
afterAll(() => server.close());

const p = '/api/public';
const rides = `${p}/citybike/rides?from=2025-06-01&to=2025-06-02`;
const readings = `${p}/bike-counter/counters/most-poniatowskiego/readings?from=2025-06-01&to=2025-06-02`;

/** Bad requests, the status they get, and the parameter the problem names. */
const badRequests: [string, number, string | undefined][] = [
  [`${p}/rcn/transactions?limit=101`, 400, 'limit'],
  [`${p}/rcn/transactions?limit=-1`, 400, 'limit'],
  [`${p}/rcn/transactions?limit=abc`, 400, 'limit'],
  [`${p}/rcn/transactions?offset=-5`, 400, 'offset'],
  [`${p}/rcn/transactions?documentDateFrom=2024-13-45`, 400, 'documentDateFrom'],
  [`${p}/rcn/transactions?version=v2`, 400, 'version'],
  [`${p}/rcn/transactions?limit=5&limit=6`, 400, 'limit'],
  [`${p}/rcn/properties?bbox=21,52,20`, 400, 'bbox'],
  [`${p}/rcn/properties?address=`, 400, 'address'],
  [`${rides}&pageSize=0`, 400, 'pageSize'],
  [`${rides}&pageSize=501`, 400, 'pageSize'],
  [`${rides}&page=0`, 400, 'page'],
  [`${p}/citybike/rides?from=2025-06-02&to=2025-06-01`, 400, 'to'],
  [`${p}/citybike/rides?from=2024-01-01&to=2025-01-01`, 400, 'to'],
  [`${p}/citybike/rides?to=2025-06-01`, 400, 'from'],
  [`${rides}&timezone=Mars/Olympus`, 400, 'timezone'],
  [`${readings}&timezone=Europe/Nowhere`, 400, 'timezone'],
  [`${p}/bike-counter/counters/most-poniatowskiego/readings?from=2025-06-01`, 400, 'to'],
  [`${p}/air-quality/history/x/PM10?from=2025-01-02&to=2025-01-01`, 400, 'to'],
  [`${p}/rcn/transactions/%E0%A4%A`, 400, 'path'],
  [`${p}/rcn/transactions/PL.nope`, 404, 'transactionGmlId'],
  [`${p}/rcn/properties/PL.nope`, 404, 'propertyGmlId'],
  [`${p}/rcn/dictionaries/nope`, 404, undefined],
  [`${p}/citybike/bikes/000`, 404, 'number'],
  [`${p}/citybike/zones/nope`, 404, 'zoneId'],
  [`${p}/citybike/seasons/1999`, 404, 'year'],
  [`${p}/bike-counter/counters/nope`, 404, 'counterId'],
  [`${p}/bike-counter/counters/nope/readings?from=2025-06-01&to=2025-06-02`, 404, 'counterId'],
  [`${p}/air-quality/stations/nope`, 404, 'stationId'],
  [`${p}/air-quality/sensors/NOPE`, 404, 'sensorCode'],
  [`${p}/air-quality/history/nope/PM10?from=2025-01-01&to=2025-01-02`, 404, 'stationId'],
  [`${p}/air-quality/live/0`, 404, 'deviceId'],
  [`${p}/rcn/nothing`, 404, undefined],
  ['/etc/passwd', 404, undefined],
];

describe('bad requests', () => {
  it.each(badRequests)('%s → %i, a problem naming the parameter', async (path, status, param) => {
    const response = await raw(`${server.url}${path}`);
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toBe('application/problem+json');
    const problem = JSON.parse(response.body.toString());
    expect(problem).toMatchObject({ status, type: expect.stringMatching(/^http:\/\/.+\/problems\/[a-z-]+$/), title: expect.any(String), detail: expect.any(String) });
    if (param) expect(problem.param).toBe(param);
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('answers %s with 405 and the methods allowed', async (method) => {
    const response = await raw(`${server.url}${p}/rcn/transactions`, { method });
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(JSON.parse(response.body.toString())).toMatchObject({ status: 405, title: 'Method not allowed' });
  });

  it('refuses a path that climbs out of the API and an oversized URL or header, cleanly', async () => {
    expect((await raw(server.url, { path: `${p}/../../../etc/passwd` })).status).toBe(404);
    expect((await raw(`${server.url}${p}/rcn/transactions?q=${'a'.repeat(9000)}`)).status).toBe(414);
    const big = await raw(`${server.url}${p}/rcn/transactions`, { headers: { 'x-big': 'a'.repeat(20_000) } });
    expect(big.status).toBe(431);
    expect(JSON.parse(big.body.toString())).toMatchObject({ status: 431 });
  });

  it('lists every problem of a request, and keeps serving after all of the above', async () => {
    const problem = JSON.parse((await raw(`${server.url}${p}/rcn/transactions?limit=0&offset=x`)).body.toString());
    expect(problem.errors.map((e: { param: string }) => e.param)).toEqual(['limit', 'offset']);
    expect((await raw(`${server.url}/healthz`)).status).toBe(200);
    expect(server.logs.filter((line) => line.level === 'error')).toEqual([]);
  });
});
