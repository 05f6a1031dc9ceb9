import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { request } from './client.ts';
import type { SoakData } from './data-dir.ts';
import { MemoryPeaks } from './memory.ts';
import { PORT } from './settings.ts';

export interface SoakServer {
  readonly process: ChildProcess;
  /** What it printed on stdout, line by line. */
  readonly log: string[];
  readonly memory: MemoryPeaks;
  stop(): void;
}

/** `odsnap serve` on the soak's data, its memory sampled from the start (its first serving database is built then). */
export function startSoakServer(data: SoakData): SoakServer {
  const server = spawn(
    process.execPath,
    ['bin/odsnap.js', 'serve', '--data', data.dir, '--port', String(PORT), '--quiet', '--static', join(data.dir, 'no-tree')],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ODSNAP_CACHE_DIR: data.cache },
    },
  );
  const log: string[] = [];
  server.stdout!.on('data', (chunk: Buffer) => log.push(...chunk.toString().trim().split('\n')));
  const memory = new MemoryPeaks(server.pid!);
  return {
    process: server,
    log,
    memory,
    stop() {
      memory.stop();
      server.kill('SIGTERM');
    },
  };
}

/** Waits until the server answers /healthz. */
export async function answering(server: SoakServer): Promise<void> {
  for (;;) {
    const { exitCode, signalCode } = server.process;
    if (exitCode !== null || signalCode !== null) throw new Error(`odsnap serve exited (${exitCode ?? signalCode}) before it answered`);
    if ((await request('/healthz', 2000).catch(() => undefined))?.status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
