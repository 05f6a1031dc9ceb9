import { Agent, createServer, request as forward, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../core/clock.ts';
import type { LiveAnswers } from './live-answers.ts';
import { minuteOf } from './live-rows.ts';

/**
 * The front of a sample city whose time moves: it answers the live endpoints as of its clock's
 * minute, and passes every other request, as it came, to `odsnap serve` over the city's data
 * directory, which follows the registers as their days are added.
 */

export interface LiveFrontOptions {
  readonly answers: LiveAnswers;
  readonly clock: Clock;
  /** The address of `odsnap serve` over the city, for every other request. */
  readonly behind: string;
  readonly port?: number;
  readonly host?: string;
}

export interface LiveFront {
  readonly url: string;
  close(): Promise<void>;
}

/** Headers of one hop, not to be passed on. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection']);

/** The base links are built on: the Host the client reached the front at, as `odsnap serve` builds them. */
const baseOf = (request: IncomingMessage) =>
  `http://${request.headers.host && /^[A-Za-z0-9.\-:[\]]{1,255}$/.test(request.headers.host) ? request.headers.host : `localhost:${request.socket.localPort}`}`;

export async function startLiveFront(options: LiveFrontOptions): Promise<LiveFront> {
  const agent = new Agent({ keepAlive: true });
  const behind = new URL(options.behind);
  const passOn = (request: IncomingMessage, response: ServerResponse) => {
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
    const out = forward({ host: behind.hostname, port: behind.port, method: request.method, path: request.url, headers, agent }, (answer) => {
      const raw = answer.rawHeaders;
      const pairs: string[] = [];
      for (let i = 0; i < raw.length; i += 2) if (!HOP_BY_HOP.has(raw[i]!.toLowerCase())) pairs.push(raw[i]!, raw[i + 1]!);
      response.writeHead(answer.statusCode ?? 502, pairs);
      answer.pipe(response);
    });
    out.on('error', (error) => {
      if (response.headersSent) return response.destroy(error);
      response.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ title: 'Bad Gateway', detail: `odsnap serve: ${error.message}` }));
    });
    request.pipe(out);
  };

  const live = async (request: IncomingMessage, response: ServerResponse): Promise<boolean> => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return false;
    const url = new URL(request.url ?? '/', 'http://front');
    let isLive: boolean;
    try {
      isLive = options.answers.isLive(url.pathname);
    } catch {
      return false; // a path that is not one (bad percent-encoding): `odsnap serve` says so
    }
    if (!isLive) return false;
    const at = minuteOf(options.clock.now());
    const body = await options.answers.answer(at, url.pathname, url.searchParams, baseOf(request));
    if (!body) return false;
    response.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      // The present changes every minute of a clock that may run a minute a second.
      'cache-control': 'no-store',
      'access-control-allow-origin': '*',
      'x-odsnap-minute': new Date(at).toISOString(),
      'content-length': body.length,
    });
    response.end(request.method === 'HEAD' ? undefined : body);
    return true;
  };

  const server = createServer((request, response) => {
    live(request, response).then(
      (answered) => answered || passOn(request, response),
      (error: Error) => {
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ title: 'Internal Server Error', detail: error.message }));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}
