import type { Clock } from '../core/clock.ts';
import { statusDocument } from '../core/status-document.ts';
import { send } from './http/respond.ts';
import type { Answer } from './http/route.ts';
import type { MirrorRecord } from './mirror-record.ts';
import type { SnapshotHost } from './snapshot-host.ts';

/** Where the server answers how fresh its data is: beside the data sets under /api/public, named like none of them. */
export const STATUS_PATH = '/api/public/status';

/**
 * `GET /api/public/status`: the snapshot served and, when a mirror keeps the data directory
 * current, each data set's last pull and each live feed's last capture, with their lags as of now
 * (core/status-document.ts). Every answer is new (lags grow by the second), so none is cached.
 */
export function statusResource(host: SnapshotHost, mirror: MirrorRecord, clock: Clock): Answer {
  return async ({ request, response }) => {
    const served = host.current;
    const document = statusDocument(served.snapshot.manifest, await mirror.read(), clock.now());
    return send(request, response, {
      status: 200,
      type: 'application/json; charset=utf-8',
      content: Buffer.from(JSON.stringify(document, null, 2)),
      cacheControl: 'no-store',
      headers: { 'x-odsnap-snapshot': served.id },
    });
  };
}
