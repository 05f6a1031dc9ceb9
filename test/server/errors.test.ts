import { connect } from 'node:net';
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
  // A path that starts with // is a path, not a host and a path.
  [`//example.org${p}/citybike/seasons`, 404, undefined],
  [`${p}/rcn/transactions?offset=9007199254740993`, 400, 'offset'],
  [`${p}/rcn/transactions?grossPriceFrom=1234567890123456`, 400, 'grossPriceFrom'],
];

/** What the server answers to bytes sent as they are, not as an HTTP client would write them. */
function rawBytes(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    // Written, not ended: the server closes the connection once it has answered (HTTP/1.0, or Connection: close).
    const socket = connect(Number(port), hostname, () => socket.write(text));
    socket
      .on('data', (chunk) => chunks.push(chunk))
      .on('end', () => resolve(Buffer.concat(chunks).toString()))
      .on('error', reject);
  });
}

describe('bad requests', () => {
  it.each(badRequests)('%s → %i, a problem naming the parameter', async (path, status, param) => {
    const response = await raw(`${server.url}${path}`);
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toBe('application/problem+json');
    const problem = JSON.parse(response.body.toString());
    expect(problem).toMatchObject({
      status,
      type: expect.stringMatching(/^http:\/\/.+\/problems\/[a-z-]+$/),
      title: expect.any(String),
      detail: expect.any(String),
    });
    if (param) expect(problem.param).toBe(param);
    // One entry per parameter, however many of its checks a value fails.
    expect(problem.errors).toBeUndefined();
    expect(problem.instance).toBe(`${server.url}${path}`);
    // The type is documentation when followed (RFC 9457 §3.1.1).
    const type = await raw(problem.type);
    expect(type.status).toBe(200);
    expect(type.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(type.body.toString()).toContain(`<h1>${problem.title}</h1>`);
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
    // Past the parser's 16 KiB for the request line and headers, the URL still gets 414, the headers 431; both with CORS.
    const longer = await raw(`${server.url}${p}/rcn/transactions?q=${'a'.repeat(20_000)}`);
    expect(longer.status).toBe(414);
    expect(longer.headers['access-control-allow-origin']).toBe('*');
    expect(JSON.parse(longer.body.toString())).toMatchObject({ status: 414, type: `${server.url}/problems/uri-too-long` });
    const big = await raw(`${server.url}${p}/rcn/transactions`, { headers: { 'x-big': 'a'.repeat(20_000) } });
    expect(big.status).toBe(431);
    expect(big.headers['access-control-allow-origin']).toBe('*');
    const problem = JSON.parse(big.body.toString());
    expect(problem).toMatchObject({ status: 431, type: `${server.url}/problems/header-fields-too-large` });
    expect((await raw(problem.type)).status).toBe(200);
  });

  it('answers an HTTP/1.1 request without Host with a problem, and HTTP/1.0 without it with links on its own port', async () => {
    const noHost = await rawBytes(server.url, `GET ${p}/citybike/seasons HTTP/1.1\r\nConnection: close\r\n\r\n`);
    expect(noHost).toMatch(/^HTTP\/1\.1 400 /);
    expect(noHost).toContain('content-type: application/problem+json');
    expect(JSON.parse(noHost.slice(noHost.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 400, detail: 'an HTTP/1.1 request must carry a Host header' });
    const old = await rawBytes(server.url, `GET ${p}/citybike/seasons HTTP/1.0\r\n\r\n`);
    const seasons = JSON.parse(old.slice(old.indexOf('\r\n\r\n') + 4));
    expect(seasons[0].uri).toMatch(new RegExp(`^http://localhost:${new URL(server.url).port}${p}/citybike/seasons/`));
  });

  it('answers CONNECT, an Expect it cannot meet and two Host headers with a problem, not a closed connection or a bare status', async () => {
    const body = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    const tunnel = await rawBytes(server.url, `CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n`);
    expect(tunnel).toMatch(/^HTTP\/1\.1 405 /);
    expect(tunnel).toContain('allow: GET, HEAD, OPTIONS');
    expect(body(tunnel)).toMatchObject({ status: 405, type: `${server.url}/problems/method-not-allowed` });
    const expectation = await rawBytes(server.url, `GET ${p}/citybike/seasons HTTP/1.1\r\nHost: a\r\nExpect: garbage\r\nConnection: close\r\n\r\n`);
    expect(expectation).toMatch(/^HTTP\/1\.1 417 /);
    expect(body(expectation)).toMatchObject({ status: 417, detail: 'Expect: garbage cannot be met; only 100-continue is' });
    const hosts = await rawBytes(server.url, `GET ${p}/citybike/seasons HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n`);
    expect(hosts).toMatch(/^HTTP\/1\.1 400 /);
    expect(body(hosts)).toMatchObject({ status: 400, detail: 'a request may carry one Host header, not several' });
  });

  it('answers headers that come too slowly with 408 and a problem at the header timeout (10 s), not later', async () => {
    const { hostname, port } = new URL(server.url);
    const started = performance.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const socket = connect(Number(port), hostname, () => socket.write(`GET ${p}/citybike/seasons HTTP/1.1\r\nHost: a\r\n`));
      // A header line every 2 s: the headers never end.
      const trickle = setInterval(() => socket.writable && socket.write(`X-Slow-${Date.now()}: 1\r\n`), 2_000);
      const giveUp = setTimeout(() => socket.destroy(new Error('no answer within 13 s')), 13_000);
      const done = () => (clearInterval(trickle), clearTimeout(giveUp));
      socket
        .on('data', (chunk) => chunks.push(chunk))
        .on('end', () => (done(), resolve(Buffer.concat(chunks).toString())))
        .on('error', (error) => (done(), reject(error)));
    });
    const seconds = (performance.now() - started) / 1000;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('content-type: application/problem+json');
    const problem = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(problem).toMatchObject({ status: 408, type: `${server.url}/problems/request-timeout` });
    expect((await raw(problem.type)).status).toBe(200);
    expect(seconds).toBeGreaterThan(9.5);
    expect(seconds).toBeLessThan(12);
  });

  it.each(['constructor', '__proto__', 'valueOf', 'toString', 'hasOwnProperty'])(
    'takes a query parameter named %s as any unknown one: ignored',
    async (name) => {
      const response = await raw(`${server.url}${p}/rcn/transactions?limit=1&${name}=1`);
      expect(response.status).toBe(200);
    },
  );

  it('lists every problem of a request, and keeps serving after all of the above', async () => {
    const problem = JSON.parse((await raw(`${server.url}${p}/rcn/transactions?limit=0&offset=x`)).body.toString());
    expect(problem.errors.map((e: { param: string }) => e.param)).toEqual(['limit', 'offset']);
    expect((await raw(`${server.url}/healthz`)).status).toBe(200);
    expect(server.logs.filter((line) => line.level === 'error')).toEqual([]);
  });
});
