import type { Dataset } from '../datasets/vocabulary/dataset.ts';
import { feedDocumentPath } from '../datasets/vocabulary/feed.ts';
import { invalidParameter } from '../core/problem.ts';
import { send } from './http/respond.ts';
import type { Answer, Asked } from './http/route.ts';
import type { SnapshotHost } from './snapshot-host.ts';
import { STATUS_PATH } from './status-resource.ts';

/**
 * `GET /` and `GET /api/public`: what this service holds and every endpoint it answers, with links.
 * `linksFollowHost`: the links' base is the request's Host (no public URL), so answers vary by it.
 */
export function apiIndex(host: SnapshotHost, datasets: readonly Dataset[], linksFollowHost: boolean): Answer {
  return async ({ request, response, url, base }: Asked): Promise<number> => {
    if (url.searchParams.getAll('snapshot').length > 1) throw invalidParameter('snapshot', 'snapshot is given more than once');
    const { manifest } = await host.snapshotOf(url.searchParams.get('snapshot') ?? undefined);
    const body = {
      snapshot: { id: manifest.id, createdAt: manifest.createdAt, source: manifest.source },
      licence: manifest.licence,
      datasets: datasets.map((dataset) => ({
        name: dataset.name,
        title: dataset.title,
        description: dataset.description,
        endpoints: dataset.endpoints.map((endpoint) => ({
          path: endpoint.fullPath,
          summary: endpoint.summary,
          // A link only where no parameter is required, so following it answers.
          ...(endpoint.parse({}).success ? { url: `${base}${endpoint.fullPath}` } : {}),
          parameters: Object.keys(endpoint.params),
          ...(endpoint.extension ? { extension: endpoint.extension } : {}),
        })),
        // Its feeds' documents (a GBFS feed), not v1 endpoints.
        ...(dataset.feeds.length
          ? {
              feeds: dataset.feeds.map((feed) => ({
                name: feed.name,
                title: feed.title,
                files: feed.documents.map((document) => `${base}/${feedDocumentPath(feed.name, dataset.name, document.file)}`),
              })),
            }
          : {}),
      })),
      sql: {
        url: `${base}/api/sql`,
        example: `${base}/api/sql?q=${encodeURIComponent('SELECT count(*) FROM rcn_transactions')}`,
        formats: ['json', 'csv', 'parquet', 'arrow'],
      },
      health: `${base}/healthz`,
      status: `${base}${STATUS_PATH}`,
    };
    return send(request, response, {
      status: 200,
      type: 'application/json; charset=utf-8',
      content: Buffer.from(JSON.stringify(body, null, 2)),
      cacheControl: 'public, max-age=60',
      identity: [manifest.id, base, 'index', url.search],
      vary: linksFollowHost ? 'Host' : undefined,
      headers: { 'x-odsnap-snapshot': manifest.id },
    });
  };
}
