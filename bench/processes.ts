import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';

/** The processes benchmarks run and watch: `odsnap serve` until it answers, and a child's peak memory. */

/** `odsnap serve` with these arguments, in its own process, once /healthz answers on `port`. */
export async function startServe(args: readonly string[], port: number, stdout: 'ignore' | number = 'ignore'): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['bin/odsnap.js', 'serve', ...args, '--port', String(port)], { stdio: ['ignore', stdout, 'inherit'] });
  for (let i = 0; i < 600; i++) {
    if ((await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.ok) return child;
    if (child.exitCode !== null || child.signalCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill();
  throw new Error(`odsnap serve ${args.join(' ')} did not start`);
}

/** Stops a process with SIGTERM and waits for it to exit. */
export async function stop(child: ChildProcess): Promise<void> {
  // Ended already, by itself or by a signal (a process killed for memory has no exit code).
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Samples a process's peak resident memory (VmHWM) ten times a second until stopped. */
export function watchPeakRss(pid: number): { readonly peakKiB: number; stop(): void } {
  let peakKiB = 0;
  const sampler = setInterval(async () => {
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    peakKiB = Math.max(peakKiB, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
  }, 100);
  return {
    get peakKiB() {
      return peakKiB;
    },
    stop: () => clearInterval(sampler),
  };
}

/**
 * A bare node:http server in its own process, answering `GET /<n>` with n bytes from memory: the
 * floor under any Node server, and a check that a load generator reaches well past the server it
 * measures.
 */
export async function startBareServer(port: number): Promise<ChildProcess> {
  const code = `
    const bodies = new Map();
    require('node:http').createServer((request, response) => {
      const size = Number(request.url.slice(1));
      let body = bodies.get(size);
      if (!body) bodies.set(size, (body = Buffer.alloc(size, 32)));
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': size }).end(body);
    }).listen(${port}, '127.0.0.1', () => process.send('listening'));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  await once(child, 'message');
  return child;
}

/**
 * A bare node:http server in its own process answering each of the given paths with its body
 * from memory (JSON, as it is): what any Node server answering the same bytes could at best do,
 * and the load generator's ceiling beside a server's figure.
 */
export async function startBodiesServer(port: number, bodies: ReadonlyMap<string, Buffer>): Promise<ChildProcess> {
  const code = `
    let bodies = new Map();
    process.once('message', (entries) => {
      bodies = new Map(entries);
      require('node:http').createServer((request, response) => {
        const body = bodies.get(request.url);
        if (!body) return response.writeHead(404).end();
        response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length }).end(body);
      }).listen(${port}, '127.0.0.1', () => process.send('listening'));
    });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'advanced' });
  child.send([...bodies]);
  await once(child, 'message');
  return child;
}
