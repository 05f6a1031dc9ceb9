import type { AttemptFailure } from './attempt.ts';

/**
 * When a failed attempt is tried again: exponential backoff with full jitter, or the wait the
 * upstream asked for (Retry-After); never for a failure trying again cannot help, past the number
 * of retries, or past the time a request waits in all.
 */

export interface RetryPolicy {
  /** Attempts after the first before a request fails for good. */
  readonly retries: number;
  /** First backoff; each retry doubles it, up to maxBackoffMs. */
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
  /** The longest a request waits to be tried again, in all (Retry-After and backoff). */
  readonly maxWaitMs: number;
}

/** What follows a failed attempt: a wait before the next, or giving up, saying why. */
export type AfterFailure = { readonly type: 'retry'; readonly waitMs: number } | { readonly type: 'give up'; readonly reason: string };

/** What follows the failure of attempt number `attempt` (from 0), after `waited` ms of waits before it. */
export function afterFailure(failure: AttemptFailure, attempt: number, waited: number, policy: RetryPolicy): AfterFailure {
  const backoff = Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** attempt);
  const waitMs = failure.retryAfterMs ?? Math.random() * backoff;
  if (!failure.retryable) return { type: 'give up', reason: failure.message };
  if (attempt >= policy.retries) return { type: 'give up', reason: `${failure.message}, still after ${attempt + 1} attempts` };
  if (waited + waitMs > policy.maxWaitMs) {
    const asked = failure.retryAfterMs !== undefined ? `it asks to be tried again in ${seconds(waitMs)} s` : `another ${seconds(waitMs)} s of backoff`;
    return { type: 'give up', reason: `${failure.message}; ${asked}, past the ${seconds(policy.maxWaitMs)} s a request waits in all (--max-wait)` };
  }
  return { type: 'retry', waitMs };
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;
