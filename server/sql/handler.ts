import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { ExtraHandler } from '../app.ts';
import { invalidParameter, Problem } from '../../core/problem.ts';
import { send } from '../http/respond.ts';
import type { SnapshotHost } from '../snapshot-host.ts';
import { contentTypes, encode, formats, type Format } from './formats.ts';
import { defaultLimits, SqlRefused, SqlSandbox, type SqlLimits } from './sandbox.ts';

/** `GET /api/sql?q=…&format=json|csv|parquet|arrow`: read-only SQL over the current snapshot. */
export function sqlHandler(host: SnapshotHost, datasets: readonly Dataset[], limits: SqlLimits = defaultLimits): ExtraHandler {
  return async (request: IncomingMessage, response: ServerResponse, url: URL) => {
    if (url.pathname !== '/api/sql') return false;
    for (const name of ['q', 'format']) if (url.searchParams.getAll(name).length > 1) throw invalidParameter(name, `${name} is given more than once`);
    const query = url.searchParams.get('q');
    if (!query?.trim()) throw invalidParameter('q', 'q is required: the SQL query, e.g. q=SELECT count(*) FROM rcn_transactions');
    const format = (url.searchParams.get('format') ?? 'json') as Format;
    if (!formats.includes(format)) throw invalidParameter('format', `format must be one of ${formats.join(', ')}`);
    const { served, release } = host.lease();
    try {
      const sandbox = await served.attachment('sql', () => SqlSandbox.open(served.snapshot, datasets));
      const result = await sandbox.run(query, limits).catch((error) => {
        if (error instanceof SqlRefused) throw new Problem('sql-refused', error.message, { param: 'q' });
        throw error;
      });
      return await send(request, response, {
        status: 200,
        type: contentTypes[format],
        content: await encode(result, format),
        cacheControl: 'public, max-age=60',
        identity: [served.id, url.pathname, url.search],
        headers: format === 'json' || format === 'csv' ? {} : { 'content-disposition': `attachment; filename="result.${format}"` },
      });
    } finally {
      release();
    }
  };
}
