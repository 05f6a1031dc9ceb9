import type { IncomingMessage, ServerResponse } from 'node:http';
import { instanceOf, invalidParameter, methodNotAllowed, Problem, problemBody } from '../core/problem.ts';
import { MalformedPath } from '../datasets/vocabulary/router.ts';
import { linkBaseOf, linksVary } from './http/link-base.ts';
import { corsHeaders, send } from './http/respond.ts';
import { dispatch, type Route } from './http/route.ts';

export interface AppOptions {
  /** Who answers a URL, in the order matched (routes.ts). */
  readonly routes: readonly Route[];
  /** Where clients reach the service; links are built on it. Default: the request's own Host. */
  readonly publicUrl?: string;
  /** Failures, and (unless `logRequests` is false) one structured line per request. */
  readonly log?: (line: Record<string, unknown>) => void;
  readonly logRequests?: boolean;
  /** Counts each request as it ends, under its route's label (see Route.label), e.g. ServerMetrics.observe. */
  readonly observe?: (route: string, status: number, seconds: number) => void;
}

/** The labels of requests no line of the routing table answered: preflights, and those refused before (method, Host, URL). */
const PREFLIGHT = 'CORS preflight';
const REFUSED = 'refused before routing';

/** Longest request target accepted; longer ones get 414. */
export const MAX_URL_LENGTH = 8192;

/** Errors of a response whose connection the client closed. */
const CLIENT_GONE = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE']);

function hostHeaders(raw: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') count++;
  return count;
}

/**
 * The request's target as a URL, once the request is one the server answers (a problem thrown
 * for one it does not); undefined for a CORS preflight, answered here.
 */
function admitted(request: IncomingMessage, response: ServerResponse): URL | undefined {
  const target = request.url ?? '/';
  if (target.length > MAX_URL_LENGTH) throw new Problem('uri-too-long', `request targets are limited to ${MAX_URL_LENGTH} characters`);
  if (request.method === 'OPTIONS') {
    response
      .writeHead(204, {
        ...corsHeaders,
        'access-control-allow-methods': 'GET, HEAD, OPTIONS',
        'access-control-allow-headers': '*',
        'access-control-max-age': '86400',
        allow: 'GET, HEAD, OPTIONS',
      })
      .end();
    return undefined;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed(request.method ?? '');
  // RFC 9112 §3.2: an HTTP/1.1 request without Host is a bad request (node:http is told to let it through, so it is answered here as a problem).
  if (request.httpVersion === '1.1' && request.headers.host === undefined) throw new Problem('bad-request', 'an HTTP/1.1 request must carry a Host header');
  // node sends 100 Continue itself, and hands over any other Expect (see index.ts).
  const expectation = request.headers.expect;
  if (expectation !== undefined && expectation.toLowerCase() !== '100-continue')
    throw new Problem('expectation-failed', `Expect: ${expectation} cannot be met; only 100-continue is`);
  // (node keeps the first of several.)
  if (hostHeaders(request.rawHeaders) > 1) throw new Problem('bad-request', 'a request may carry one Host header, not several');
  // A path is read as a path: resolved against a base, `//host/…` would lose its first segment as a host name.
  return target.startsWith('/') ? new URL(`http://request.invalid${target}`) : new URL(target);
}

/** The server's request listener: each request checked, answered by the first route that takes it, its failures answered as problems, and logged. */
export function createApp(options: AppOptions) {
  const logRequests = options.log !== undefined && options.logRequests !== false;
  const baseOf = linkBaseOf(options.publicUrl);
  const vary = linksVary(options.publicUrl);
  const { observe } = options;

  return async function listener(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const started = performance.now();
    const base = baseOf(request);
    let bytes = 0;
    let route = REFUSED;
    try {
      const url = admitted(request, response);
      if (!url) route = PREFLIGHT;
      else bytes = await dispatch(options.routes, { request, response, url, base }, (label) => (route = label));
    } catch (error) {
      // The client went away while its answer was sent (or closed right after its last byte, before
      // the write was done): nothing failed here, and there is no one left to answer.
      if (response.headersSent && CLIENT_GONE.has((error as NodeJS.ErrnoException).code ?? '')) {
        response.destroy();
        return;
      }
      const problem =
        error instanceof Problem
          ? error
          : error instanceof MalformedPath
            ? invalidParameter('path', error.message)
            : error instanceof TypeError && /Invalid URL/.test(error.message)
              ? new Problem('bad-request', 'the request target is not a valid URL')
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
      observe?.(route, response.statusCode, (performance.now() - started) / 1000);
      if (logRequests)
        options.log!({
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
