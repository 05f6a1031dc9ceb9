import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The command that runs one of our TypeScript modules in a node process of its own (through tsx,
 * as bin/odsnap.js runs the CLI), for work kept apart from the server: its memory, its threads
 * and its failures are its own. `memoryCap` (bytes) caps its data (RLIMIT_DATA) and `nice` lowers
 * its CPU priority; both are set by the shell for node itself, before any thread of it starts
 * (threads inherit both). Windows has neither: there the process runs as it is.
 */
export function nodeCommand(entry: URL, args: readonly string[], options: { memoryCap?: number; nice?: boolean } = {}): [string, string[]] {
  const node = [...runTypeScript, fileURLToPath(entry), ...args];
  if (process.platform === 'win32') return [process.execPath, node];
  const cap = options.memoryCap === undefined ? '' : `ulimit -d ${Math.floor(options.memoryCap / 1024)} 2>/dev/null; `;
  const nice = options.nice ? 'nice -n 10 ' : '';
  return ['/bin/sh', ['-c', `${cap}exec ${nice}"$0" "$@"`, process.execPath, ...node]];
}

const runTypeScript = ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href];
