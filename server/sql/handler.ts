import { open, rm, type FileHandle } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { constants, createBrotliCompress, createGzip } from 'node:zlib';
import { invalidParameter, Problem } from '../../core/problem.ts';
import { corsHeaders, etagOf, matches, negotiate } from '../http/respond.ts';
import type { Answer, Asked } from '../http/route.ts';
import type { SnapshotHost } from '../snapshot-host.ts';
import { contentTypes, formats, type Format } from './formats.ts';
import { removeOrphanedSpillDirs } from '../../core/db/spill.ts';
import { defaultRunnerOptions, spillParent, SqlRunner, type RunnerOptions } from './runner.ts';
import { defaultLimits, SqlRefused, type SqlLimits } from './limits.ts';

export interface SqlServiceOptions {
  readonly limits?: SqlLimits;
  /** Queries run at once; more wait, up to `waiting`, and beyond that are answered 503. */
  readonly running?: number;
  readonly waiting?: number;
  readonly runner?: RunnerOptions;
  readonly log?: (line: Record<string, unknown>) => void;
}

/**
 * Admits at most `running` queries at a time and `waiting` more in line; a query that waits
 * spends its own time limit waiting.
 */
class Admission {
  private active = 0;
  private readonly line: (() => void)[] = [];

  constructor(
    private readonly running: number,
    private readonly waiting: number,
  ) {}

  /**
   * Resolves with a release function once the query may run; throws 503 when the line is full.
   * Aborting `signal` takes a waiting query out of the line, failed with the abort's reason.
   */
  async enter(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.active >= this.running) {
      if (this.line.length >= this.waiting) {
        throw new Problem(
          'service-unavailable',
          `${this.running + this.waiting} SQL queries are running or waiting, as many as this server takes; send it again shortly`,
          {},
          { 'retry-after': '1' },
        );
      }
      await new Promise<void>((resolve, reject) => {
        const turn = () => {
          signal?.removeEventListener('abort', leave);
          resolve();
        };
        const leave = () => {
          const at = this.line.indexOf(turn);
          if (at >= 0) this.line.splice(at, 1);
          reject(signal!.reason);
        };
        this.line.push(turn);
        signal?.addEventListener('abort', leave, { once: true });
      });
    } else this.active++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = this.line.shift();
      if (next) next();
      else this.active--;
    };
  }
}

/** `GET /api/sql?q=…&format=json|csv|parquet|arrow`: read-only SQL over the current snapshot, in a process of its own (see runner.ts). */
export function sqlEndpoint(host: SnapshotHost, options: SqlServiceOptions = {}): Answer {
  const limits = options.limits ?? defaultLimits;
  const admission = new Admission(options.running ?? 2, options.waiting ?? 6);
  // What SQL processes and servers killed before left in the temporary directory: their results, DuckDB's spill.
  void removeOrphanedSpillDirs(spillParent()).catch(() => {});
  return async ({ request, response, url }: Asked): Promise<number> => {
    for (const name of ['q', 'format']) if (url.searchParams.getAll(name).length > 1) throw invalidParameter(name, `${name} is given more than once`);
    const query = url.searchParams.get('q');
    if (!query?.trim()) throw invalidParameter('q', 'q is required: the SQL query, e.g. q=SELECT count(*) FROM rcn_transactions');
    const format = (url.searchParams.get('format') ?? 'json') as Format;
    if (!formats.includes(format)) throw invalidParameter('format', `format must be one of ${formats.join(', ')}`);
    const arrived = Date.now();
    const deadline = arrived + limits.timeoutMs;
    // A client that goes away before its answer is ready takes its query with it: stopped, its turn given up.
    const clientGone = new AbortController();
    response.once('close', () => {
      if (!response.writableEnded) clientGone.abort(new Problem('sql-refused', 'the client went away before its answer was ready', { param: 'q' }));
    });
    if (url.searchParams.getAll('snapshot').length > 1) throw invalidParameter('snapshot', 'snapshot is given more than once');
    const { served, release } = await host.leaseOf(url.searchParams.get('snapshot') ?? undefined);
    let file: string | undefined;
    try {
      // The answer for a snapshot never changes: a client holding it need not wait in line.
      const encoding = format === 'json' || format === 'csv' ? negotiate(request.headers['accept-encoding']) : 'identity';
      const etag = etagOf([served.id, url.pathname, url.search], encoding);
      const headers: Record<string, string> = {
        ...corsHeaders,
        'content-type': contentTypes[format],
        'cache-control': 'public, max-age=60',
        vary: 'Accept-Encoding',
        etag,
        'x-odsnap-snapshot': served.id,
        ...(format === 'json' || format === 'csv' ? {} : { 'content-disposition': `attachment; filename="result.${format}"` }),
      };
      if (matches(request.headers['if-none-match'], etag)) {
        response.writeHead(304, headers).end();
        return 0;
      }
      const leave = await admission.enter(clientGone.signal);
      let bytes: number;
      try {
        const runner = await served.attachment(
          'sql',
          async () => new SqlRunner(served.snapshot, served.datasets, options.runner ?? defaultRunnerOptions, options.log),
        );
        // Starting the process (the first query on a snapshot) is not the query's time.
        const starting = Date.now();
        await runner.ready();
        const admitted = Date.now();
        ({ file, bytes } = await runner.run(query, format, limits, deadline + (admitted - starting), clientGone.signal).catch((error) => {
          if (!(error instanceof SqlRefused)) throw error;
          // The process knows the time it had left, not the limit: the whole story is told here.
          const waited = (starting - arrived) / 1000;
          const detail =
            error.limit === 'time'
              ? `the query ran past the time limit of ${limits.timeoutMs / 1000} s and was stopped${waited >= 0.1 ? ` (${waited.toFixed(1)} s of it spent waiting for a turn: other queries were running)` : ''}`
              : error.message;
          throw new Problem('sql-refused', detail, { param: 'q', ...(error.limit ? { limit: error.limit } : {}) });
        }));
      } finally {
        leave();
      }
      const result = await wholeResult(file, bytes);
      if (encoding !== 'identity') headers['content-encoding'] = encoding;
      else headers['content-length'] = String(bytes);
      response.writeHead(200, headers);
      if (request.method === 'HEAD') {
        await result.close();
        response.end();
        return 0;
      }
      // A failure from here on destroys the response (pipeline does): the body then ends short of its
      // length, or without chunked encoding's last chunk, so no client takes it for the whole result.
      if (encoding === 'identity') await pipeline(result.createReadStream(), response);
      // As the API's answers are compressed (brotli at its default, 11, would take seconds of CPU for a large result).
      else
        await pipeline(
          result.createReadStream(),
          encoding === 'br'
            ? createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: bytes } })
            : createGzip({ level: 6 }),
          response,
        );
      return bytes;
    } finally {
      if (file) await rm(file, { force: true });
      release();
    }
  };
}

/**
 * The result file, opened, once it is known to hold what its process wrote: the status goes out
 * only then, so a result that is not whole is answered with a problem, not a 200.
 */
async function wholeResult(file: string, bytes: number): Promise<FileHandle> {
  const handle = await open(file).catch(() => undefined);
  if (handle && (await handle.stat()).size === bytes) return handle;
  await handle?.close();
  throw new Problem('service-unavailable', 'the result of the query was lost before it was sent; send it again', {}, { 'retry-after': '1' });
}
