import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The sample city served as an upstream, and grown, by odsnap commands in processes of their own. */

const cli = fileURLToPath(new URL('../bin/odsnap.js', import.meta.url));

export interface SampleUpstream {
  readonly url: string;
  stop(): void;
}

/**
 * `odsnap serve` over the sample city in its own process, as a real upstream is: the crawler and
 * the server then each have a core, and the pull takes half the time it takes in one process.
 */
export async function serveSampleUpstream(sampleDir: string): Promise<SampleUpstream> {
  const child = spawn(process.execPath, [cli, 'serve', '--data', sampleDir, '--port', '0', '--quiet', '--static', join(sampleDir, 'no-static-tree')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let said = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      said += chunk;
      const found = /serving snapshot \S+ at (http:\/\/\S+)/.exec(said);
      if (found) resolve(found[1]!);
    });
    child.on('exit', (code) => reject(new Error(`the sample upstream (odsnap serve) exited with code ${code}: ${said.trim()}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

/**
 * `odsnap sample` in its own process: the city's registers a day (or days) older, its snapshot
 * made current, while the process that asked goes on answering. Rejects with what it said when it fails.
 */
export function sampleInProcess(args: readonly string[], signal: AbortSignal): Promise<void> {
  const child = spawn(process.execPath, [cli, 'sample', ...args], { stdio: ['ignore', 'ignore', 'pipe'], signal, killSignal: 'SIGTERM' });
  let said = '';
  child.stderr.on('data', (chunk) => (said += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', (error) => (error.name === 'AbortError' ? resolve() : reject(error)));
    child.on('exit', (code) =>
      code === 0 || signal.aborted
        ? resolve()
        : reject(new Error(`odsnap sample ${args.join(' ')} exited with code ${code}: ${said.trim().split('\n').slice(-3).join(' ')}`)),
    );
  });
}
