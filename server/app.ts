import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dataset } from '../datasets/vocabulary/dataset.ts';
import { renderContext, type RenderContext } from '../datasets/vocabulary/render.ts';
import { envelopeFor, type Envelope } from '../datasets/answers/envelope.ts';
import { withEscapes } from '../datasets/vocabulary/written.ts';
import type { SnapshotSource } from '../core/snapshot/manifest.ts';
import type { ZoneOffsets } from '../core/zoned-time.ts';
import { kindOf } from '../datasets/answers/index.ts';
import { serialize } from '../datasets/answers/serving.ts';
import { instanceOf, invalidParameter, methodNotAllowed, notFound, Problem, problemBody, problemTypePage, refusedParameters } from '../core/problem.ts';
import { corsHeaders, send } from './http/respond.ts';
import { createRouter, MalformedPath } from '../datasets/vocabulary/router.ts';
import type { SnapshotHost } from './snapshot-host.ts';

export interface AppOptions {
  readonly datasets: readonly Dataset[];
  readonly host: SnapshotHost;
  /** Where clients reach the service; links are built on it. Default: the request's own Host. */
  readonly publicUrl?: string;
  /** Failures, and (unless `logRequests` is false) one structured line per request. */
  readonly log?: (line: Record<string, unknown>) => void;
  readonly logRequests?: boolean;
  /** Further handlers tried before the v1 routes, e.g. SQL; answer undefined to pass. */
  readonly extra?: readonly ExtraHandler[];
}

/**
 * A handler for paths beyond the v1 endpoints; returns false when the path is not its own, at once
 * where it can tell (every request passes by each: a promise apiece cost a record by id a tenth).
 */
export type ExtraHandler = ((request: IncomingMessage, response: ServerResponse, url: URL, base: string) => Promise<number | false> | false) & {
  /** Answers a browser's request for a path nothing serves with a page (the site's 404.html), status 404; false when it has none. */
  readonly notFoundPage?: (request: IncomingMessage, response: ServerResponse) => Promise<number> | false;
};

/**
 * A request for a page that is not there, from a browser: it gets the site's 404 page. The API's
 * paths keep their problem JSON, whatever the client accepts, as clients of the v1 interface expect.
 */
const wantsPage = (request: IncomingMessage, url: URL) => !url.pathname.startsWith('/api/') && /\btext\/html\b/.test(request.headers.accept ?? '');

function hostHeaders(raw: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') count++;
  return count;
}

/** Longest request target accepted; longer ones get 414. */
export const MAX_URL_LENGTH = 8192;
const API_CACHE = 'public, max-age=60';

/** Errors of a response whose connection the client closed. */
const CLIENT_GONE = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE']);

export function createApp(options: AppOptions) {
  const route = createRouter(options.datasets);
  const logRequests = options.log !== undefined && options.logRequests !== false;
  // Requests come with a few bases and time zones: their contexts are made once.
  const contexts = new Map<string, RenderContext>();
  const contextOf = (base: string, timeZone: string, zoneOffsets: ZoneOffsets | undefined) => {
    const key = `${timeZone} ${base} ${zoneOffsets?.nonZero} ${zoneOffsets?.zero}`;
    let context = contexts.get(key);
    if (!context) {
      if (contexts.size >= 256) contexts.clear();
      contexts.set(key, (context = renderContext({ baseUrl: base, timeZone, ...(zoneOffsets ? { zoneOffsets } : {}) })));
    }
    return context;
  };
  // An endpoint's envelope, as its snapshot learned it, resolved once per base.
  const envelopes = new Map<string, Envelope | undefined>();
  const envelopeOf = (snapshot: string, endpoint: string, base: string, resolve: () => Envelope | undefined) => {
    const key = `${snapshot} ${endpoint} ${base}`;
    if (!envelopes.has(key)) {
      if (envelopes.size >= 1024) envelopes.clear();
      envelopes.set(key, resolve());
    }
    return envelopes.get(key);
  };

  const publicBase = options.publicUrl?.replace(/\/+$/, '');
  // Without a public URL, links follow the request's Host: a cache must not give one host's answer to another.
  const vary = publicBase ? undefined : 'Host';
  // Requests come with a few Host values: each is read once.
  const bases = new Map<string, string>();
  const baseOf = (request: IncomingMessage) => {
    if (publicBase) return publicBase;
    const host = request.headers.host;
    let base = host === undefined ? undefined : bases.get(host);
    if (base === undefined) {
      const named = host !== undefined && /^[A-Za-z0-9.\-:[\]]{1,255}$/.test(host);
      // A Host that is no host (or none, from HTTP/1.0): this server's own port on localhost, so links still resolve here.
      base = `http://${named ? host : `localhost:${request.socket.localPort}`}`;
      // Only a host name is remembered: any other Host would be a key as long as the client makes it.
      if (named) {
        if (bases.size >= 256) bases.clear();
        bases.set(host, base);
      }
    }
    return base;
  };

  async function handle(request: IncomingMessage, response: ServerResponse, base: string): Promise<number> {
    const target = request.url ?? '/';
    if (target.length > MAX_URL_LENGTH) throw new Problem('uri-too-long', `request targets are limited to ${MAX_URL_LENGTH} characters`);
    if (request.method === 'OPTIONS') {
      response.writeHead(204, { ...corsHeaders, 'access-control-allow-methods': 'GET, HEAD, OPTIONS', 'access-control-allow-headers': '*', 'access-control-max-age': '86400', allow: 'GET, HEAD, OPTIONS' }).end();
      return 0;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed(request.method ?? '');
    // RFC 9112 §3.2: an HTTP/1.1 request without Host is a bad request (node:http is told to let it through, so it is answered here as a problem).
    if (request.httpVersion === '1.1' && request.headers.host === undefined) throw new Problem('bad-request', 'an HTTP/1.1 request must carry a Host header');
    // node sends 100 Continue itself, and hands over any other Expect (see index.ts).
    const expectation = request.headers.expect;
    if (expectation !== undefined && expectation.toLowerCase() !== '100-continue') throw new Problem('expectation-failed', `Expect: ${expectation} cannot be met; only 100-continue is`);
    // (node keeps the first of several.)
    if (hostHeaders(request.rawHeaders) > 1) throw new Problem('bad-request', 'a request may carry one Host header, not several');
    // A path is read as a path: resolved against a base, `//host/…` would lose its first segment as a host name.
    const url = target.startsWith('/') ? new URL(`http://request.invalid${target}`) : new URL(target);
    for (const extra of options.extra ?? []) {
      const answering = extra(request, response, url, base);
      if (answering === false) continue;
      const sent = await answering;
      if (sent !== false) return sent;
    }
    if (url.pathname === '/healthz') {
      const body = { status: 'ok', snapshot: options.host.current.id };
      return send(request, response, { status: 200, type: 'application/json', content: Buffer.from(JSON.stringify(body)), cacheControl: 'no-store' });
    }
    if (url.pathname.startsWith('/problems/')) {
      const page = problemTypePage(url.pathname.slice('/problems/'.length));
      if (!page) throw notFound(`no problem type at ${url.pathname}`);
      return send(request, response, { status: 200, type: 'text/html; charset=utf-8', content: Buffer.from(page), cacheControl: 'public, max-age=86400' });
    }
    const found = route(url.pathname);
    if (!found) {
      if (wantsPage(request, url)) for (const extra of options.extra ?? []) {
        const answering = extra.notFoundPage?.(request, response);
        if (answering) return answering;
      }
      throw notFound(`no endpoint at ${url.pathname}`);
    }

    // Without a prototype: a parameter named constructor or __proto__ is a parameter like any other.
    const query: Record<string, string> = Object.create(null);
    if (url.search) for (const [name, value] of url.searchParams) {
      if (Object.hasOwn(query, name)) throw invalidParameter(name, `${name} is given more than once`);
      query[name] = value;
    }
    // `snapshot` is odsnap's own, not the spec's: which snapshot to answer from (the current one by default).
    const { served, release } = query.snapshot === undefined ? options.host.lease() : await options.host.leaseOf(query.snapshot);
    try {
      const { endpoint, dataset } = found;
      // What the upstream defaults to where the spec shows no default (a list's page size), and
      // what its envelopes hold beyond the spec's: answered as it answered (see the manifest's endpoints).
      const upstream = served.snapshot.manifest.endpoints?.[endpoint.fullPath];
      const parsed = endpoint.parse({ ...upstream?.defaults, ...query, ...found.params });
      if (!parsed.success) throw refusedParameters(parsed.error.issues);
      const params = parsed.data;
      const context = contextOf(base, (params.timezone as string | undefined) ?? 'UTC', upstream?.zoneOffsets);
      const envelope = envelopeOf(served.snapshot.id, endpoint.fullPath, base, () => envelopeFor(upstream, context));
      const connection = served.onDemand();
      let body: unknown;
      try {
        body = await kindOf(endpoint.answer).serve({ served, dataset, endpoint, path: url.pathname, params, query, context, base, connection, envelope }, endpoint.answer);
      } finally {
        connection.release();
      }
      return await send(request, response, {
        status: 200,
        type: 'application/json; charset=utf-8',
        content: asWritten(serialize(body), served.snapshot.manifest.source),
        cacheControl: API_CACHE,
        identity: [served.id, base, url.pathname, url.search],
        vary,
        headers: { 'x-odsnap-snapshot': served.id },
      });
    } finally {
      release();
    }
  }

  return async function listener(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const started = performance.now();
    const base = baseOf(request);
    let bytes = 0;
    try {
      bytes = await handle(request, response, base);
    } catch (error) {
      // The client went away while its answer was sent (or closed right after its last byte, before
      // the write was done): nothing failed here, and there is no one left to answer.
      if (response.headersSent && CLIENT_GONE.has((error as NodeJS.ErrnoException).code ?? '')) {
        response.destroy();
        return;
      }
      const problem =
        error instanceof Problem ? error
        : error instanceof MalformedPath ? invalidParameter('path', error.message)
        : error instanceof TypeError && /Invalid URL/.test(error.message) ? new Problem('bad-request', 'the request target is not a valid URL')
        : undefined;
      if (!problem) options.log?.({ level: 'error', error: (error as Error).stack ?? String(error), path: request.url });
      const reported = problem ?? new Problem('internal-error', 'the server failed to answer; the failure is logged');
      if (!response.headersSent) {
        bytes = await send(request, response, {
          status: reported.status,
          type: 'application/problem+json',
          content: Buffer.from(JSON.stringify(problemBody(reported, base, instanceOf(request.url ?? '/', base)))),
          cacheControl: 'no-store',
          vary,
          headers: reported.headers,
        });
      } else response.destroy();
    } finally {
      if (logRequests) options.log!({
        time: new Date().toISOString(),
        method: request.method,
        path: (request.url ?? '/').split('?')[0]!.slice(0, 2048),
        query: (request.url ?? '').split('?')[1]?.slice(0, 2048) ?? '',
        status: response.statusCode,
        ms: Math.round((performance.now() - started) * 100) / 100,
        bytes,
      });
    }
  };
}

/** A body with the escapes its upstream writes where JSON lets a writer choose (see the manifest's source). */
function asWritten(bytes: Buffer, source: SnapshotSource): Buffer {
  const escapes = source.kind === 'pull' ? source.escapes : undefined;
  return escapes ? Buffer.from(withEscapes(bytes.toString(), escapes)) : bytes;
}
