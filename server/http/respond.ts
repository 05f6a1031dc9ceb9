import { Memo } from '../../core/memo.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

/**
 * Sending a body the way HTTP clients and caches expect: compressed when asked (br before gzip),
 * with a strong ETag per representation, conditional 304s, CORS for public data, and no body for
 * HEAD.
 */

const compressors = {
  br: promisify((input: Buffer, done: (error: Error | null, result: Buffer) => void) =>
    brotliCompress(input, { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: input.length } }, done),
  ),
  gzip: promisify((input: Buffer, done: (error: Error | null, result: Buffer) => void) => gzip(input, { level: 6 }, done)),
};

export type Encoding = 'br' | 'gzip' | 'identity';

/** Bodies smaller than this are sent as they are: compressing them saves less than it costs. */
const COMPRESS_FROM = 1024;

/** Clients send few distinct Accept-Encoding values: each is read once (if short: the client chooses its length). */
const negotiated = new Memo<string, Encoding>(256);
const NEGOTIATED_LENGTH = 256;

/** The best encoding the client accepts, by Accept-Encoding and its q-values. */
export function negotiate(acceptEncoding: string | undefined): Encoding {
  if (!acceptEncoding) return 'identity';
  if (acceptEncoding.length > NEGOTIATED_LENGTH) return negotiateOnce(acceptEncoding);
  // get, then remember: no closure made on every request's way.
  return negotiated.get(acceptEncoding) ?? negotiated.remember(acceptEncoding, negotiateOnce(acceptEncoding));
}

function negotiateOnce(acceptEncoding: string): Encoding {
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...options] = part.trim().toLowerCase().split(';');
    const q = options.map((o) => o.trim()).find((o) => o.startsWith('q='));
    accepted.set(name!, q ? Number(q.slice(2)) || 0 : 1);
  }
  const quality = (name: string) => accepted.get(name) ?? accepted.get('*') ?? 0;
  // The client's preference first; br when both are as welcome (it is the smaller).
  const [br, gzip] = [quality('br'), quality('gzip')];
  if (br > 0 && br >= gzip) return 'br';
  if (gzip > 0) return 'gzip';
  return 'identity';
}

/**
 * A strong validator for the representation: what it answers, from which snapshot, in which
 * encoding. The parts name the representation, they are not its bytes, so a hash that only has to
 * tell those names apart does: 64 bits of FNV-1a, where SHA-1 cost a record by id a tenth of its
 * answer.
 */
export function etagOf(parts: readonly string[], encoding: Encoding): string {
  let high = 0x84222325;
  let low = 0xcbf29ce4;
  for (const part of parts) {
    for (let i = 0; i <= part.length; i++) {
      // A separator after each part, so that ["ab", "c"] and ["a", "bc"] differ.
      const unit = i < part.length ? part.charCodeAt(i) : 0x10000;
      high = Math.imul(high ^ unit, 0x01000193);
      low = Math.imul(low ^ (unit + 0x9e37), 0x100001b3);
    }
  }
  const tag = (high >>> 0).toString(36).padStart(7, '0') + (low >>> 0).toString(36).padStart(7, '0');
  return `"${tag}${encoding === 'identity' ? '' : `-${encoding}`}"`;
}

export function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

export const corsHeaders = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'ETag, Content-Length, Content-Range, X-Odsnap-Snapshot',
};

export interface Body {
  readonly status: number;
  readonly type: string;
  readonly content: Buffer;
  readonly cacheControl: string;
  /** What the response stands for; with the encoding it makes the ETag. Absent: no ETag. */
  readonly identity?: readonly string[];
  /** A request header the content depends on besides Accept-Encoding, for Vary: Host when its links are built on it. */
  readonly vary?: 'Host';
  readonly headers?: Readonly<Record<string, string>>;
}

/** CORS as a flat list of names and values, as writeHead takes it (faster than an object, whose names node checks one by one). */
export const CORS_LIST: readonly string[] = Object.entries(corsHeaders).flat();

/**
 * A body made ready for the wire for one encoding: compressed, its ETag made, its headers listed
 * in the order writeHead takes them. Made once, it can be sent again and again (see
 * server/kept-answers.ts).
 */
export interface Representation {
  readonly status: number;
  /** What the client gets back unless it holds this representation already. */
  readonly content: Buffer;
  readonly etag: string | undefined;
  /** The headers of a 304 Not Modified: every one but those of the body. */
  readonly notModified: readonly string[];
  /** The headers of the full answer. */
  readonly headers: readonly string[];
}

/** A body made ready for the encoding this request accepts: compressed if it is worth it, with its ETag and headers. */
export async function represent(request: IncomingMessage, body: Body): Promise<Representation> {
  const encoding = encodingFor(request, body);
  const etag = body.identity ? etagOf(body.identity, encoding) : undefined;
  const notModified = notModifiedHeaders(body, etag);
  const content = encoding === 'identity' ? body.content : await compressors[encoding](body.content);
  const headers = [...notModified];
  if (encoding !== 'identity') headers.push('content-encoding', encoding);
  headers.push('content-length', String(content.length));
  return { status: body.status, content, etag, notModified, headers };
}

const encodingFor = (request: IncomingMessage, body: Body): Encoding =>
  body.content.length >= COMPRESS_FROM ? negotiate(request.headers['accept-encoding']) : 'identity';

/** The headers of a 304 for this body: every one but those of the body itself. */
function notModifiedHeaders(body: Body, etag: string | undefined): string[] {
  const headers = [
    ...CORS_LIST,
    'content-type',
    body.type,
    'cache-control',
    body.cacheControl,
    'vary',
    body.vary ? `Accept-Encoding, ${body.vary}` : 'Accept-Encoding',
  ];
  if (etag) headers.push('etag', etag);
  if (body.headers) for (const name in body.headers) headers.push(name, body.headers[name]!);
  return headers;
}

/** Sends a representation: 304 to a client that holds it, no body to HEAD. Returns the bytes of body written. */
export function deliver(request: IncomingMessage, response: ServerResponse, representation: Representation): number {
  const { status, etag, content } = representation;
  if (etag && status === 200 && matches(request.headers['if-none-match'], etag)) {
    response.writeHead(304, representation.notModified as string[]).end();
    return 0;
  }
  response.writeHead(status, representation.headers as string[]);
  if (request.method === 'HEAD') {
    response.end();
    return 0;
  }
  response.end(content);
  return content.length;
}

/** Sends a body; returns the bytes written. A client that holds it already gets its 304 before anything is compressed. */
export async function send(request: IncomingMessage, response: ServerResponse, body: Body): Promise<number> {
  // Only a revalidation pays for the ETag here: every other answer has it made once, in represent.
  const held = request.headers['if-none-match'];
  const etag = held && body.identity && body.status === 200 ? etagOf(body.identity, encodingFor(request, body)) : undefined;
  if (etag && matches(held, etag)) {
    response.writeHead(304, notModifiedHeaders(body, etag)).end();
    return 0;
  }
  return deliver(request, response, await represent(request, body));
}
