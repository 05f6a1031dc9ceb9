import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Dataset } from '../datasets/vocabulary/dataset.ts';
import { createApp, MAX_URL_LENGTH } from './app.ts';
import { type Clock, wallClock } from '../core/clock.ts';
import { ServerMetrics } from './metrics/server-metrics.ts';
import { MirrorRecord } from './mirror-record.ts';
import { problemTypes, type ProblemType } from '../core/problem.ts';
import { serverRoutes } from './routes.ts';
import type { SqlServiceOptions } from './sql/handler.ts';
import { SnapshotHost } from './snapshot-host.ts';
import type { ServedSnapshotOptions } from './served-snapshot.ts';
import type { StaticTree } from './static-tree.ts';
import type { LatestLiveRows } from './latest-live-rows.ts';

export interface ServerOptions extends ServedSnapshotOptions {
  readonly dataDir: string;
  readonly datasets: readonly Dataset[];
  readonly port?: number;
  readonly host?: string;
  readonly publicUrl?: string;
  /** Follow the data directory's current snapshot (default true). */
  readonly watch?: boolean;
  readonly log?: (line: Record<string, unknown>) => void;
  /** A line per request to `log` (default true). */
  readonly logRequests?: boolean;
  /** The SQL endpoint's limits, how many queries it runs and keeps waiting, its process's memory. */
  readonly sql?: Omit<SqlServiceOptions, 'log'>;
  /** The static tree (and the site) served beside the API; where its files come in the routing table is routes.ts's to say. */
  readonly tree?: StaticTree;
  /** The e-mail address the data sets' feeds (GBFS) give for reports about them. */
  readonly contact?: string;
  /** Where the feeds read the latest live rows (see latest-live-rows.ts; default: the snapshot's newest capture). */
  readonly latestLive?: LatestLiveRows;
  /** The time ages and lags are counted to (the status resource, the metrics): the mirror's clock, by default the wall's. */
  readonly clock?: Clock;
}

export interface RunningServer {
  /** Where it listens, e.g. http://127.0.0.1:4321 */
  readonly url: string;
  readonly host: SnapshotHost;
  readonly server: Server;
  /** Stops accepting, lets running requests finish, then releases the snapshot. */
  close(): Promise<void>;
}

/** How long a request's headers may take to arrive, and the whole request; past them it is answered 408 (see core/problem.ts). */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * A problem body for requests too broken to reach the app (oversized URLs or headers, garbage),
 * written straight to the socket. Its type is under `publicUrl`, else the address the request
 * came to; there is no instance, as the request could not be read.
 */
function rejectBroken(publicUrl: string | undefined) {
  return (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket): void => {
    const [slug, detail] = brokenRequestProblem(error);
    writeProblem(socket, publicUrl, slug, detail);
  };
}

/** A problem written to the socket as a whole HTTP/1.1 answer, closing the connection. */
function writeProblem(socket: Socket, publicUrl: string | undefined, slug: ProblemType, detail: string, headers: Record<string, string> = {}): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const { status, title } = problemTypes[slug];
  const address = socket.localFamily === 'IPv6' ? `[${socket.localAddress}]` : socket.localAddress;
  const base = publicUrl?.replace(/\/+$/, '') ?? `http://${address}:${socket.localPort}`;
  const body = JSON.stringify({ type: `${base}/problems/${slug}`, title, status, detail });
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${title}\r\ncontent-type: application/problem+json\r\naccess-control-allow-origin: *\r\n${extra}` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

function brokenRequestProblem(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): [ProblemType, string] {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return [
      'request-timeout',
      `the request did not arrive in time: its headers within ${HEADERS_TIMEOUT_MS / 1000} s, the whole of it within ${REQUEST_TIMEOUT_MS / 1000} s`,
    ];
  if (error.code !== 'HPE_HEADER_OVERFLOW') return ['bad-request', 'the request is not valid HTTP/1.1'];
  // The parser counts the request line with the headers; a first line this long is the URL's doing.
  const firstLine = error.rawPacket?.indexOf('\r\n') ?? -1;
  if (error.rawPacket && (firstLine < 0 ? error.rawPacket.length : firstLine) > MAX_URL_LENGTH)
    return ['uri-too-long', `request targets are limited to ${MAX_URL_LENGTH} characters`];
  return ['header-fields-too-large', 'request headers are limited to 16 KiB'];
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const host = await SnapshotHost.open(options.dataDir, options.datasets, { ...options, log: options.log });
  if (options.watch !== false) host.watch();
  const clock = options.clock ?? wallClock;
  const mirror = new MirrorRecord(options.dataDir);
  const metrics = new ServerMetrics(host, mirror, clock);
  const routes = serverRoutes({
    datasets: options.datasets,
    host,
    publicUrl: options.publicUrl,
    tree: options.tree,
    sql: { ...options.sql, log: options.log },
    contact: options.contact,
    latestLive: options.latestLive,
    mirror,
    clock,
    metrics,
  });
  const listener = createApp({ routes, publicUrl: options.publicUrl, log: options.log, logRequests: options.logRequests, observe: metrics.observe });
  // requireHostHeader: false lets a request without Host reach the app, which answers it with a problem body, not node's bare 400.
  // node looks for requests past their timeouts every connectionsCheckingInterval (30 s by default,
  // so headers that never end were answered up to 30 s late): every second here.
  const server = createServer(
    {
      maxHeaderSize: 16 * 1024,
      requestTimeout: REQUEST_TIMEOUT_MS,
      headersTimeout: HEADERS_TIMEOUT_MS,
      connectionsCheckingInterval: 1_000,
      keepAliveTimeout: 5_000,
      requireHostHeader: false,
    },
    (request, response) => {
      void listener(request, response);
    },
  );
  server.on('clientError', rejectBroken(options.publicUrl));
  // node answers these itself when no one listens: CONNECT by closing the connection, an unknown
  // Expect by a bare 417. The app answers the Expect (see app.ts) as it answers any problem.
  server.on('connect', (_request: IncomingMessage, socket: Socket) => {
    writeProblem(socket, options.publicUrl, 'method-not-allowed', 'the service is read-only: it answers GET, HEAD and OPTIONS', {
      allow: 'GET, HEAD, OPTIONS',
    });
  });
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => void listener(request, response));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 4321, options.host ?? '127.0.0.1', () => resolve());
    });
  } catch (error) {
    // Nothing listens, so nothing may keep the process alive: the watcher and DuckDB go too.
    await host.close();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}`,
    host,
    server,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), 10_000);
      await closed;
      clearTimeout(timer);
      await host.close();
    },
  };
}
