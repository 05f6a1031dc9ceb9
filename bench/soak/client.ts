import { Agent, get } from 'node:http';
import { percentile } from '../city.ts';
import { startBareServer } from '../processes.ts';
import { BARE_PORT, PORT, SQL_CONNECTIONS, V1_CONNECTIONS } from './settings.ts';

/** The soak's HTTP client: keep-alive connections to the server, timed. */

const base = `http://127.0.0.1:${PORT}`;

export const agent = new Agent({ keepAlive: true, maxSockets: V1_CONNECTIONS + SQL_CONNECTIONS + 4 });

export interface Answer {
  readonly status: number;
  readonly ms: number;
  readonly bytes: number;
  readonly body: string;
}

/** GETs a path over a keep-alive connection (of `to`, by default the server); the body is kept whole only when asked (the first 2,000 bytes otherwise). */
export function request(path: string, timeoutMs = 60_000, whole = false, to = base): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = get(`${to}${path}`, { agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({
          status: response.statusCode!,
          ms: performance.now() - started,
          bytes: body.length,
          body: (whole ? body : body.subarray(0, 2000)).toString(),
        });
      });
      response.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    req.on('error', reject);
  });
}

/**
 * The same client (12 closed loops, this process) against a bare node:http server answering the
 * v1 answers' median size from memory: how far the load generator reaches beyond the server.
 */
export async function generatorReach(bytes: number, seconds: number): Promise<{ reqPerSec: number; p50: number }> {
  const bare = await startBareServer(BARE_PORT);
  try {
    const until = Date.now() + seconds * 1000;
    const times: number[] = [];
    await Promise.all(
      Array.from({ length: V1_CONNECTIONS }, async () => {
        while (Date.now() < until) times.push((await request(`/${bytes}`, 10_000, false, `http://127.0.0.1:${BARE_PORT}`)).ms);
      }),
    );
    return { reqPerSec: times.length / seconds, p50: percentile(times, 50) };
  } finally {
    bare.kill('SIGTERM');
  }
}
