import http from 'node:http';
import https from 'node:https';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { nestingPast } from './nesting.ts';

/**
 * One attempt at a GET: the answer read whole within a deadline, unzipped, bounded in size and
 * nesting, and parsed as JSON; or an AttemptFailure saying whether trying again could help.
 */

export interface Answer {
  readonly status: number;
  /** Parsed JSON; undefined for a 404. */
  readonly body: unknown;
  /** The JSON text as sent (decompressed). */
  readonly text: string;
  readonly url: string;
}

/** Why an attempt failed and whether trying again could help. */
export class AttemptFailure extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

export interface AttemptLimits {
  /** For the whole answer, body included. */
  readonly timeoutMs: number;
  /** Largest answer read, in bytes (after decompression). */
  readonly maxAnswerBytes: number;
  /** Deepest nesting of arrays and objects read. */
  readonly maxDepth: number;
}

const unzip = promisify(gunzip);

/** GETs `url` once; `received` is told the bytes of each answer read to its end. */
export function attempt(url: string, notFoundAllowed: boolean, agent: http.Agent, limits: AttemptLimits, received: (bytes: number) => void): Promise<Answer> {
  const client = url.startsWith('https:') ? https : http;
  return new Promise<Answer>((resolve, reject) => {
    const request = client.get(url, { agent, headers: { accept: 'application/json', 'accept-encoding': 'gzip' } }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size > limits.maxAnswerBytes) request.destroy(tooLarge(limits.maxAnswerBytes));
      });
      response.on('error', (error) => reject(new AttemptFailure(`the answer broke off: ${describe(error)}`, true)));
      response.on('end', () => {
        received(size);
        if (!response.complete) return reject(new AttemptFailure('the answer ended early', true));
        const status = response.statusCode ?? 0;
        if (status === 404 && notFoundAllowed) return resolve({ status, body: undefined, text: '', url });
        const body = Buffer.concat(chunks);
        if (status !== 200) {
          const retryable = status === 408 || status === 425 || status === 429 || status >= 500;
          const detail = body.subarray(0, 300).toString('utf8').replace(/\s+/g, ' ');
          return reject(
            new AttemptFailure(`answered ${status}${detail ? ` (${detail})` : ''}`, retryable, status, retryAfter(response.headers['retry-after'])),
          );
        }
        const encoding = response.headers['content-encoding'];
        (encoding === 'gzip' ? unzip(body, { maxOutputLength: limits.maxAnswerBytes }) : Promise.resolve(body)).then(
          (bytes) => {
            const text = bytes.toString('utf8');
            const depth = nestingPast(text, limits.maxDepth);
            if (depth !== undefined)
              return reject(new AttemptFailure(`the answer nests arrays and objects deeper than ${limits.maxDepth} levels (at character ${depth})`, true));
            try {
              resolve({ status, body: JSON.parse(text), text, url });
            } catch (error) {
              reject(new AttemptFailure(`the answer is not JSON: ${describe(error)}`, true));
            }
          },
          (error: NodeJS.ErrnoException) =>
            reject(
              error.code === 'ERR_BUFFER_TOO_LARGE'
                ? tooLarge(limits.maxAnswerBytes)
                : new AttemptFailure(`the answer does not unzip: ${describe(error)}`, true),
            ),
        );
      });
    });
    // A deadline for the whole answer: a body trickling in forever is as stuck as one never sent.
    const deadline = setTimeout(() => request.destroy(new AttemptFailure(`no complete answer within ${limits.timeoutMs / 1000} s`, true)), limits.timeoutMs);
    request.on('close', () => clearTimeout(deadline));
    request.on('error', (error) => reject(error instanceof AttemptFailure ? error : new AttemptFailure(describe(error), true)));
  });
}

const tooLarge = (bytes: number) => new AttemptFailure(`the answer is larger than ${Math.round(bytes / 1024 / 1024)} MiB`, true);

/** Retry-After as seconds or an HTTP date, in milliseconds from now. */
function retryAfter(value: string | undefined): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** An error's code and message, as a failure's reason says it. */
export const describe = (error: unknown): string => {
  const e = error as NodeJS.ErrnoException;
  return e?.code ? `${e.code}${e.message && !e.message.includes(e.code) ? ` (${e.message})` : ''}` : String(e?.message ?? error);
};
