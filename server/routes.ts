import { Memo } from '../core/memo.ts';
import type { IncomingMessage } from 'node:http';
import type { Clock } from '../core/clock.ts';
import { notFound, problemTypePage } from '../core/problem.ts';
import type { Dataset } from '../datasets/vocabulary/dataset.ts';
import { createRouter, type Route as EndpointMatch } from '../datasets/vocabulary/router.ts';
import { apiIndex } from './api-index.ts';
import { endpointAnswer } from './endpoint-answer.ts';
import { feedAnswer, feedDocuments } from './feed-answer.ts';
import { send } from './http/respond.ts';
import { anyPath, exactly, route, under, type Answer, type Route } from './http/route.ts';
import { latestInSnapshot, type LatestLiveRows } from './latest-live-rows.ts';
import type { ServerMetrics } from './metrics/server-metrics.ts';
import type { MirrorRecord } from './mirror-record.ts';
import type { SnapshotHost } from './snapshot-host.ts';
import { sqlEndpoint, type SqlServiceOptions } from './sql/handler.ts';
import { namedLikeAFile, type StaticTree } from './static-tree.ts';
import { STATUS_PATH, statusResource } from './status-resource.ts';

export interface RoutesOptions {
  readonly datasets: readonly Dataset[];
  readonly host: SnapshotHost;
  readonly publicUrl?: string;
  /** The static tree served beside the API, if any. */
  readonly tree?: StaticTree;
  readonly sql: SqlServiceOptions;
  /** The e-mail address the data sets' feeds give for reports about them. */
  readonly contact?: string;
  /** Where the feeds read the latest live rows (default: the newest capture in the snapshot). */
  readonly latestLive?: LatestLiveRows;
  /** The mirror's record of the data directory, which the status resource reads. */
  readonly mirror: MirrorRecord;
  readonly clock: Clock;
  readonly metrics: ServerMetrics;
}

/**
 * Who answers a URL: every path the server answers, the v1 API's and odsnap's own, in the order
 * they are matched; the first line whose `match` takes the path answers it. Around the table,
 * app.ts checks the request (method, Host, Expect), answers CORS preflights, turns what an answer
 * throws into a problem, and logs.
 *
 * The static tree answers any path it holds a file at, ahead of odsnap's own paths (the site's
 * home page takes `/`). Its files are named as files (`.json`, `.parquet`, …), so a v1 path named
 * otherwise (…/transactions/T1) is no file of it and is the API's at once, the tree not asked;
 * one named like a file may be the tree's: a record's file is its endpoint's path with `.json`
 * (…/transactions/T1.json), which the v1 router would take for an id. The data sets' feeds
 * (`/gbfs/citybike/…`) come before the tree, which holds them as they were at its build: answered
 * here, they are as current as the live rows read.
 */
export function serverRoutes(options: RoutesOptions): readonly Route[] {
  const endpointAt = recentlyMatched(createRouter(options.datasets));
  const endpoint = endpointAnswer(options);
  const feedAt = feedDocuments(options.datasets);
  const { tree } = options;
  // Requests to the v1 API are counted by endpoint, its path template standing for every path it takes.
  const template = (found: EndpointMatch) => found.endpoint.fullPath;
  return [
    route('v1 endpoint', (url) => (tree && namedLikeAFile(url.pathname) ? undefined : endpointAt(url.pathname)), endpoint, template),
    route('feed document', (url) => feedAt(url.pathname), feedAnswer({ ...options, latestLive: options.latestLive ?? latestInSnapshot })),
    route(
      'static file',
      (url) => tree?.fileAt(url.pathname),
      ({ request, response }, file) => tree!.send(request, response, file),
    ),
    route('index', exactly('/', '/api/public'), apiIndex(options.host, options.datasets, options.publicUrl === undefined)),
    route('SQL', exactly('/api/sql'), sqlEndpoint(options.host, options.sql)),
    // The data sets' paths are /api/public/<data set>/<endpoint>…, never this one.
    route('status', exactly(STATUS_PATH), statusResource(options.host, options.mirror, options.clock)),
    route('health', exactly('/healthz'), health(options.host)),
    route('metrics', exactly('/metrics'), options.metrics.answer),
    route('problem type', under('/problems/'), problemType),
    route('v1 endpoint named like a file', (url) => endpointAt(url.pathname), endpoint, template),
    route('not found', anyPath, notFoundAnswer(tree)),
  ];
}

/**
 * The router, remembering what it found for the last few thousand paths: clients ask for the same
 * paths again and again (a record by its id). What it found is shared, never changed. Only paths
 * it found an endpoint for, and only short ones, are remembered: anyone can ask for any number of
 * paths, each as long as a request target may be, and a memory of those is theirs to fill.
 */
function recentlyMatched(router: (pathname: string) => EndpointMatch | undefined) {
  const recent = new Memo<string, EndpointMatch>(REMEMBERED_PATHS);
  return (pathname: string): EndpointMatch | undefined => {
    const remembered = recent.get(pathname);
    if (remembered) return remembered;
    const found = router(pathname);
    if (found && pathname.length <= REMEMBERED_PATH_LENGTH) recent.remember(pathname, found);
    return found;
  };
}

/** How many paths the router remembers, and how long each may be: at most a few MiB in all. */
const REMEMBERED_PATHS = 4096;
const REMEMBERED_PATH_LENGTH = 512;

const health =
  (host: SnapshotHost): Answer =>
  ({ request, response }) =>
    send(request, response, {
      status: 200,
      type: 'application/json',
      content: Buffer.from(JSON.stringify({ status: 'ok', snapshot: host.current.id })),
      cacheControl: 'no-store',
    });

/** `/problems/<type>`: a page saying what a problem type means. */
const problemType: Answer = async ({ request, response, url }) => {
  const page = problemTypePage(url.pathname.slice('/problems/'.length));
  if (!page) throw notFound(`no problem type at ${url.pathname}`);
  return send(request, response, { status: 200, type: 'text/html; charset=utf-8', content: Buffer.from(page), cacheControl: 'public, max-age=86400' });
};

/**
 * A request for a page that is not there, from a browser: it gets the site's 404 page. The API's
 * paths keep their problem JSON, whatever the client accepts, as clients of the v1 interface expect.
 */
const wantsPage = (request: IncomingMessage, url: URL) => !url.pathname.startsWith('/api/') && /\btext\/html\b/.test(request.headers.accept ?? '');

/** A path nothing answers: the tree's 404 page to a browser, when it has one; else a problem. */
const notFoundAnswer =
  (tree: StaticTree | undefined): Answer =>
  async ({ request, response, url }) => {
    const page = wantsPage(request, url) && tree?.notFoundPage(request, response);
    if (page) return page;
    throw notFound(`no endpoint at ${url.pathname}`);
  };
