import http from 'node:http';
import https from 'node:https';
import { setTimeout as wait } from 'node:timers/promises';
import { attempt, AttemptFailure, describe, type Answer } from './upstream/attempt.ts';
import { Pacing } from './upstream/pacing.ts';
import { afterFailure } from './upstream/retry.ts';

/**
 * The v1 upstream as pull sees it: GET a path, get JSON back, whatever the network does in
 * between. Every request carries version=v1. Retries with exponential backoff and full jitter on
 * 429, 5xx, timeouts, resets and bodies that end early or do not parse, honouring Retry-After;
 * bounded concurrency and a global request rate; after several requests in a row have failed for
 * good, the upstream is taken to be down and every further request fails at once. One attempt
 * is upstream/attempt.ts, when to try again upstream/retry.ts, how fast requests start
 * upstream/pacing.ts.
 */

export type { Answer } from './upstream/attempt.ts';

export interface UpstreamOptions {
  /** The service's base URL, e.g. https://example.org (paths start with /api/public/…). */
  readonly baseUrl: string;
  /** Requests in flight at once. */
  readonly concurrency: number;
  /** Requests started per second, across all of them; 0 for no limit. */
  readonly rate: number;
  /** Per attempt, for the whole answer, body included. */
  readonly timeoutMs: number;
  /** Attempts after the first before a request fails for good. */
  readonly retries: number;
  /** First backoff; each retry doubles it, up to maxBackoffMs. */
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
  /** Requests failing for good in a row before the upstream counts as down. */
  readonly downAfter: number;
  /** Largest answer read, in bytes (after decompression): a larger one fails its attempt. */
  readonly maxAnswerBytes: number;
  /** Deepest nesting of arrays and objects read in an answer: a deeper one fails its attempt (unbounded depth overflows the stack of whatever walks it). */
  readonly maxDepth: number;
  /** The longest a request waits to be tried again, in all (Retry-After and backoff): a wait that would take it past fails it at once. */
  readonly maxWaitMs: number;
  readonly onRetry?: (retry: { url: string; attempt: number; reason: string; waitMs: number; retryAfterMs?: number }) => void;
}

export const defaultUpstreamOptions = {
  concurrency: 4,
  rate: 0,
  timeoutMs: 30_000,
  retries: 6,
  backoffMs: 500,
  maxBackoffMs: 30_000,
  downAfter: 3,
  // The spec's largest page (1,000 records of a few hundred bytes) is well under 1 MiB.
  maxAnswerBytes: 64 * 1024 * 1024,
  maxDepth: 64,
  // Backoff alone waits about 30 s in all; an upstream asking for minutes more is as good as down.
  maxWaitMs: 5 * 60_000,
} satisfies Omit<UpstreamOptions, 'baseUrl'>;

/** A request that failed for good: a status the upstream will not change its mind on, or retries exhausted. */
export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly url: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface GetOptions {
  /** Resolve with status 404 instead of failing (a single resource gone since its list was read). */
  readonly notFound?: boolean;
  /** What is wrong with the body's envelope, if anything; a misshapen body is retried like a truncated one. */
  readonly shape?: (body: unknown) => string | undefined;
  /** Called for each request sent (a retry is another), not for one refused because the upstream is down. */
  readonly onAttempt?: () => void;
}

export interface UpstreamStats {
  requests: number;
  retries: number;
  bytes: number;
  failures: number;
}

export class Upstream {
  readonly stats: UpstreamStats = { requests: 0, retries: 0, bytes: 0, failures: 0 };
  private readonly options: UpstreamOptions;
  private readonly base: URL;
  private readonly agent: http.Agent;
  private readonly pacing: Pacing;
  private failuresInARow = 0;
  private down: UpstreamError | undefined;
  private readonly closing = new AbortController();

  constructor(options: Partial<UpstreamOptions> & Pick<UpstreamOptions, 'baseUrl'>) {
    this.options = { ...defaultUpstreamOptions, ...options };
    this.base = new URL(this.options.baseUrl);
    if (!/^https?:$/.test(this.base.protocol)) throw new Error(`--from must be an http or https URL, not ${this.options.baseUrl}`);
    const Agent = this.base.protocol === 'https:' ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, maxSockets: this.options.concurrency });
    this.pacing = new Pacing(this.options.concurrency, this.options.rate);
  }

  /** The absolute URL of a path (with `/api/public/…`) and query, version=v1 included. */
  url(path: string, query: Readonly<Record<string, string | number>> = {}): string {
    const url = new URL(this.base.pathname.replace(/\/+$/, '') + path, this.base);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, String(value));
    url.searchParams.set('version', 'v1');
    return url.toString();
  }

  /** GETs JSON: resolves with the parsed body of a 200 (or a 404 when allowed), else fails with an UpstreamError. */
  async get(path: string, query: Readonly<Record<string, string | number>> = {}, options: GetOptions = {}): Promise<Answer> {
    const url = this.url(path, query);
    let waited = 0;
    for (let tried = 0; ; tried++) {
      if (this.down) throw this.down;
      let failure: AttemptFailure;
      await this.pacing.slot();
      try {
        if (this.down) throw this.down;
        options.onAttempt?.();
        this.stats.requests++;
        const answer = await attempt(url, options.notFound ?? false, this.agent, this.options, (bytes) => (this.stats.bytes += bytes));
        const problem = answer.body === undefined ? undefined : options.shape?.(answer.body);
        if (problem) throw new AttemptFailure(`the answer is not shaped as expected: ${problem}`, true);
        this.failuresInARow = 0;
        return answer;
      } catch (error) {
        if (error === this.down) throw error;
        failure = error instanceof AttemptFailure ? error : new AttemptFailure(describe(error), true);
      } finally {
        this.pacing.release();
      }
      const next = afterFailure(failure, tried, waited, this.options);
      if (next.type === 'give up') throw this.failedForGood(url, failure, next.reason);
      waited += next.waitMs;
      this.stats.retries++;
      this.options.onRetry?.({ url, attempt: tried + 1, reason: failure.message, waitMs: next.waitMs, retryAfterMs: failure.retryAfterMs });
      // The upstream found down, or the client closed, ends the wait: a failed pull ends at once.
      await wait(next.waitMs, undefined, { signal: this.closing.signal }).catch(() => {
        throw this.down ?? new UpstreamError(`GET ${url}: the pull stopped`, url);
      });
    }
  }

  /** Set once the upstream counts as down; every request fails with it from then on. */
  get downError(): UpstreamError | undefined {
    return this.down;
  }

  close(): void {
    this.closing.abort();
    this.agent.destroy();
  }

  /** A request's failure for good; after `downAfter` of them in a row, the upstream counts as down. */
  private failedForGood(url: string, failure: AttemptFailure, reason: string): UpstreamError {
    this.stats.failures++;
    const error = new UpstreamError(`GET ${url}: ${reason}`, url, failure.status);
    if (failure.retryable && ++this.failuresInARow >= this.options.downAfter) {
      this.down = new UpstreamError(`the upstream ${this.options.baseUrl} looks down: ${this.failuresInARow} requests in a row failed (last: ${reason})`, url);
      // Requests waiting to try again fail now, not when their wait ends.
      this.closing.abort();
    }
    return error;
  }
}
