import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Counted, not replaced: the answers stay what they would be.
vi.mock('node:zlib', async (original) => {
  const real = await original<typeof zlib>();
  return { ...real, brotliCompress: vi.fn(real.brotliCompress), gzip: vi.fn(real.gzip) };
});
const { send } = await import('../../../server/http/respond.ts');

const body = {
  status: 200,
  type: 'application/json; charset=utf-8',
  content: Buffer.from(JSON.stringify({ items: Array.from({ length: 500 }, (_, i) => ({ id: i, name: `item ${i}` })) })),
  cacheControl: 'public, max-age=60',
  identity: ['snapshot-1', '/api/public/things'],
};

let url: string;
const server = createServer((request: IncomingMessage, response: ServerResponse) => void send(request, response, body));
beforeAll(async () => {
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise((closed) => server.close(closed)));

describe('send', () => {
  it('answers a client that holds the body 304 without compressing it again', async () => {
    const first = await fetch(url, { headers: { 'accept-encoding': 'br' } });
    await first.arrayBuffer();
    expect(first.headers.get('content-encoding')).toBe('br');
    const etag = first.headers.get('etag')!;
    vi.mocked(zlib.brotliCompress).mockClear();
    const again = await fetch(url, { headers: { 'accept-encoding': 'br', 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(zlib.brotliCompress).not.toHaveBeenCalled();
    // Another encoding's ETag does not match: that client gets the whole answer, compressed for it.
    const other = await fetch(url, { headers: { 'accept-encoding': 'gzip', 'if-none-match': etag } });
    await other.arrayBuffer();
    expect(other.status).toBe(200);
    expect(other.headers.get('content-encoding')).toBe('gzip');
  });
});
