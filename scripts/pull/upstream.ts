import http from 'node:http';
import https from 'node:https';
import { setTimeout as wait } from 'node:timers/promises';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';

/**
 * The v1 upstream as pull sees it: GET a path, get JSON back, whatever the network does in
 * between. Every request carries version=v1. Retries with exponential backoff and full jitter on
 * 429, 5xx, timeouts, resets and bodies that end early or do not parse, honouring Retry-After;
 * bounded concurrency and a global request rate; after several requests in a row have failed for
 * good, the upstream is taken to be down and every further request fails at once.
 */

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

export interface Answer {
  readonly status: number;
  /** Parsed JSON; undefined for a 404. */
  readonly body: unknown;
  /** The JSON text as sent (decompressed). */
  readonly text: string;
  readonly url: string;
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

/** Why an attempt failed and whether trying again could help. */
class AttemptFailure extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

const unzip = promisify(gunzip);

export class Upstream {
  readonly stats: UpstreamStats = { requests: 0, retries: 0, bytes: 0, failures: 0 };
  private readonly options: UpstreamOptions;
  private readonly base: URL;
  private readonly agent: http.Agent;
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private nextStart = 0;
  private failuresInARow = 0;
  private down: UpstreamError | undefined;
  private readonly closing = new AbortController();

  constructor(options: Partial<UpstreamOptions> & Pick<UpstreamOptions, 'baseUrl'>) {
    this.options = { ...defaultUpstreamOptions, ...options };
    this.base = new URL(this.options.baseUrl);
    if (!/^https?:$/.test(this.base.protocol)) throw new Error(`--from must be an http or https URL, not ${this.options.baseUrl}`);
    const Agent = this.base.protocol === 'https:' ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, maxSockets: this.options.concurrency });
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
    for (let attempt = 0; ; attempt++) {
      if (this.down) throw this.down;
      let failure: AttemptFailure;
      await this.slot();
      try {
        if (this.down) throw this.down;
        options.onAttempt?.();
        const answer = await this.attempt(url, options.notFound ?? false);
        const problem = answer.body === undefined ? undefined : options.shape?.(answer.body);
        if (problem) throw new AttemptFailure(`the answer is not shaped as expected: ${problem}`, true);
        this.failuresInARow = 0;
        return answer;
      } catch (error) {
        if (error === this.down) throw error;
        failure = error instanceof AttemptFailure ? error : new AttemptFailure(describe(error), true);
      } finally {
        this.release();
      }
      const backoff = Math.min(this.options.maxBackoffMs, this.options.backoffMs * 2 ** attempt);
      const waitMs = failure.retryAfterMs ?? Math.random() * backoff;
      const tooLong = waited + waitMs > this.options.maxWaitMs;
      if (!failure.retryable || attempt >= this.options.retries || tooLong) {
        this.stats.failures++;
        const reason = !failure.retryable
          ? failure.message
          : attempt >= this.options.retries
            ? `${failure.message}, still after ${attempt + 1} attempts`
            : `${failure.message}; ${failure.retryAfterMs !== undefined ? `it asks to be tried again in ${seconds(waitMs)} s` : `another ${seconds(waitMs)} s of backoff`}, past the ${seconds(this.options.maxWaitMs)} s a request waits in all (--max-wait)`;
        const error = new UpstreamError(`GET ${url}: ${reason}`, url, failure.status);
        if (failure.retryable && ++this.failuresInARow >= this.options.downAfter) {
          this.down = new UpstreamError(`the upstream ${this.options.baseUrl} looks down: ${this.failuresInARow} requests in a row failed (last: ${reason})`, url);
          // Requests waiting to try again fail now, not when their wait ends.
          this.closing.abort();
        }
        throw error;
      }
      waited += waitMs;
      this.stats.retries++;
      this.options.onRetry?.({ url, attempt: attempt + 1, reason: failure.message, waitMs, retryAfterMs: failure.retryAfterMs });
      // The upstream found down, or the client closed, ends the wait: a failed pull ends at once.
      await wait(waitMs, undefined, { signal: this.closing.signal }).catch(() => {
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

  private attempt(url: string, notFoundAllowed: boolean): Promise<Answer> {
    this.stats.requests++;
    const client = this.base.protocol === 'https:' ? https : http;
    return new Promise<Answer>((resolve, reject) => {
      const request = client.get(url, { agent: this.agent, headers: { accept: 'application/json', 'accept-encoding': 'gzip' } }, (response) => {
        const chunks: Buffer[] = [];
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          received += chunk.length;
          if (received > this.options.maxAnswerBytes) request.destroy(tooLarge(this.options.maxAnswerBytes));
        });
        response.on('error', (error) => reject(new AttemptFailure(`the answer broke off: ${describe(error)}`, true)));
        response.on('end', () => {
          this.stats.bytes += received;
          if (!response.complete) return reject(new AttemptFailure('the answer ended early', true));
          const status = response.statusCode ?? 0;
          if (status === 404 && notFoundAllowed) return resolve({ status, body: undefined, text: '', url });
          const body = Buffer.concat(chunks);
          if (status !== 200) {
            const retryable = status === 408 || status === 425 || status === 429 || status >= 500;
            const detail = body.subarray(0, 300).toString('utf8').replace(/\s+/g, ' ');
            return reject(new AttemptFailure(`answered ${status}${detail ? ` (${detail})` : ''}`, retryable, status, retryAfter(response.headers['retry-after'])));
          }
          const encoding = response.headers['content-encoding'];
          (encoding === 'gzip' ? unzip(body, { maxOutputLength: this.options.maxAnswerBytes }) : Promise.resolve(body)).then(
            (bytes) => {
              const text = bytes.toString('utf8');
              const depth = nestingPast(text, this.options.maxDepth);
              if (depth !== undefined) return reject(new AttemptFailure(`the answer nests arrays and objects deeper than ${this.options.maxDepth} levels (at character ${depth})`, true));
              try {
                resolve({ status, body: JSON.parse(text), text, url });
              } catch (error) {
                reject(new AttemptFailure(`the answer is not JSON: ${describe(error)}`, true));
              }
            },
            (error: NodeJS.ErrnoException) =>
              reject(error.code === 'ERR_BUFFER_TOO_LARGE' ? tooLarge(this.options.maxAnswerBytes) : new AttemptFailure(`the answer does not unzip: ${describe(error)}`, true)),
          );
        });
      });
      // A deadline for the whole answer: a body trickling in forever is as stuck as one never sent.
      const deadline = setTimeout(
        () => request.destroy(new AttemptFailure(`no complete answer within ${this.options.timeoutMs / 1000} s`, true)),
        this.options.timeoutMs,
      );
      request.on('close', () => clearTimeout(deadline));
      request.on('error', (error) => reject(error instanceof AttemptFailure ? error : new AttemptFailure(describe(error), true)));
    });
  }

  /** Waits for a free place among `concurrency`, then for the rate's next start time. */
  private async slot(): Promise<void> {
    if (this.active >= this.options.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    if (this.options.rate > 0) {
      const now = Date.now();
      const start = Math.max(now, this.nextStart);
      this.nextStart = start + 1000 / this.options.rate;
      if (start > now) await sleep(start - now);
    }
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}

const tooLarge = (bytes: number) => new AttemptFailure(`the answer is larger than ${Math.round(bytes / 1024 / 1024)} MiB`, true);

/**
 * Where JSON text first nests arrays and objects deeper than `max`, or undefined: checked on the
 * text, before parsing, in one pass that skips strings.
 */
export function nestingPast(text: string, max: number): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // To the closing quote, past escaped characters.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \\ */) i++;
        else if (d === 34) break;
      }
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return i;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return undefined;
}

/** Retry-After as seconds or an HTTP date, in milliseconds from now. */
function retryAfter(value: string | undefined): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

const describe = (error: unknown): string => {
  const e = error as NodeJS.ErrnoException;
  return e?.code ? `${e.code}${e.message && !e.message.includes(e.code) ? ` (${e.message})` : ''}` : String(e?.message ?? error);
};

const seconds = (ms: number) => Math.round(ms / 100) / 10;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
