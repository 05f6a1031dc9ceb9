import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * Load by wrk (Debian package `wrk`): on these 2 cores it sends ten times what autocannon can,
 * so a server's figure is the server's. One thread, cycling through the given paths with the
 * given headers; any non-2xx/3xx answer or socket error fails the run.
 */

const run = promisify(execFile);

export interface Load {
  readonly paths: readonly string[];
  readonly headers?: Readonly<Record<string, string>>;
}

export interface Measured {
  readonly reqPerSec: number;
  readonly p50: number;
  readonly p99: number;
}

let scripts = 0;

/** A wrk script that cycles through the paths with the headers. */
async function script(load: Load): Promise<string> {
  const dir = join(process.cwd(), '.cache', 'bench', 'wrk');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `load-${process.pid}-${scripts++}.lua`);
  const lines = [
    ...Object.entries(load.headers ?? {}).map(([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`),
    `local paths = { ${load.paths.map((path) => JSON.stringify(path)).join(', ')} }`,
    'local i = 0',
    'request = function()',
    '  i = i % #paths + 1',
    '  return wrk.format("GET", paths[i])',
    'end',
  ];
  await writeFile(file, lines.join('\n') + '\n');
  return file;
}

const milliseconds = (value: string, unit: string) => Number(value) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[unit]!;

/** Runs wrk against `url` for `seconds` with `connections`; req/s and latency percentiles in ms. */
export async function wrk(url: string, load: Load, seconds: number, connections = 16): Promise<Measured> {
  const { stdout } = await run('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '30s', '--latency', '-s', await script(load), url], {
    maxBuffer: 1 << 20,
  });
  const failed = /Non-2xx or 3xx responses: (\d+)/.exec(stdout) ?? /Socket errors: .*/.exec(stdout);
  if (failed) throw new Error(`${url}: ${failed[0]}`);
  const percentile = (p: string) => {
    const match = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)$`, 'm').exec(stdout);
    return match ? milliseconds(match[1]!, match[2]!) : NaN;
  };
  return { reqPerSec: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)![1]), p50: percentile('50'), p99: percentile('99') };
}

/** wrk after a warm-up of two seconds. */
export async function measure(url: string, load: Load, seconds: number, connections = 16): Promise<Measured> {
  await wrk(url, load, 2, connections);
  return wrk(url, load, seconds, connections);
}
