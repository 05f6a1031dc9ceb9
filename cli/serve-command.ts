import { z } from 'zod';
import { datasets } from '../datasets/index.ts';
import type { RunningServer } from '../server/index.ts';
import { cacheDirOption, dataDirOption, defineCommand } from './command.ts';
import { holdsSnapshot } from '../core/snapshot/layout.ts';
import { builtSnapshotId } from '../core/published-tree.ts';
import { clockFromEnvironment } from '../core/clock.ts';
import { archivedOrSnapshotted } from './live-rows.ts';
import { logFormatOption, logWriter } from './log-lines.ts';

export const serveCommand = defineCommand({
  name: 'serve',
  summary: 'Answer the whole v1 interface, and read-only SQL, over the current snapshot.',
  description:
    'Every endpoint and filter of the v1 spec, so existing v1 clients can point here. Follows the data\n' +
    'directory: when a new snapshot becomes current it takes over without a restart. Also serves the static\n' +
    'tree of "odsnap build" (--static), with precompressed variants, ETags and byte ranges. Logs a line per\n' +
    'request on stdout: readable on a terminal, JSON otherwise (--log-format). Ctrl-C lets running requests\n' +
    'finish, then stops.',
  options: {
    data: dataDirOption('read'),
    'cache-dir': cacheDirOption,
    port: {
      type: 'string',
      value: 'PORT',
      description: 'port to listen on',
      default: '4321',
      check: z
        .string()
        .regex(/^\d{1,5}$/, { error: 'must be a port number' })
        .transform(Number)
        .pipe(z.number().max(65_535, { error: 'must be a port number' })),
    },
    host: { type: 'string', value: 'HOST', description: 'address to listen on', default: '127.0.0.1' },
    'public-url': {
      type: 'string',
      value: 'URL',
      description: 'address clients use, for links (default: taken from each request)',
      check: z.url({ protocol: /^https?$/, error: 'must be an http(s) address' }).optional(),
    },
    contact: {
      type: 'string',
      value: 'EMAIL',
      description: "e-mail address for reports about the data sets' feeds, GBFS's feed_contact_email (default: an .invalid address saying none was given)",
      check: z.email({ error: 'must be an e-mail address' }).optional(),
    },
    static: {
      type: 'string',
      value: 'DIR',
      description: 'the tree "odsnap build" wrote, served beside the API when built from this data directory (followed across rebuilds)',
      default: 'dist',
    },
    'memory-limit': {
      type: 'string',
      value: 'SIZE',
      description: "DuckDB's memory limit per snapshot, e.g. 256MB (more cache, more memory)",
      default: '128MB',
      check: z.string().regex(/^\d+(\.\d+)?\s*(KB|MB|GB|KiB|MiB|GiB)$/i, { error: 'must be a size such as 128MB or 1GB' }),
    },
    quiet: { type: 'boolean', description: 'no request log lines' },
    'log-format': logFormatOption,
  },
  async run(options, output) {
    const [{ startServer }, { staticTree }] = await Promise.all([import('../server/index.ts'), import('../server/static-tree.ts')]);
    // A tree built from another data directory (./dist, the default, is often npm start's) would
    // answer its files beside an API over other data: served only when its snapshot is one of ours.
    const ownTree = (root: string) => {
      const id = builtSnapshotId(root);
      const own = id !== undefined && holdsSnapshot(options.data, id);
      if (!own)
        output.err(
          `odsnap: not serving the static tree at ${options.static}: it was built from ${id ? `snapshot ${id}, which ${options.data} does not hold` : 'no snapshot odsnap can read'}; run "odsnap build --data ${options.data} --out ${options.static}" to serve one\n`,
        );
      return own;
    };
    const server = await startServer({
      dataDir: options.data,
      datasets,
      port: options.port,
      host: options.host,
      publicUrl: options['public-url'],
      contact: options.contact,
      latestLive: archivedOrSnapshotted(options.data),
      memoryLimit: options['memory-limit'],
      tree: staticTree(options.static, ownTree),
      // Ages and lags on the mirror's clock (ODSNAP_CLOCK, which tests and benches run faster).
      clock: clockFromEnvironment(),
      log: logWriter(output, options['log-format']),
      logRequests: !options.quiet,
    }).catch(explainListenError(options.host, options.port));
    output.err(`odsnap: serving snapshot ${server.host.current.id} at ${server.url}\n`);
    await untilStopped(server, output.err);
    return 0;
  },
});

/** Says what to do when the address is taken, instead of node's EADDRINUSE. */
export const explainListenError =
  (host: string, port: number) =>
  (error: NodeJS.ErrnoException): never => {
    if (error.code === 'EADDRINUSE') throw new Error(`${host}:${port} is in use (another odsnap serve?); choose another port with ${portOption(port + 1)}`);
    throw error;
  };

/**
 * How to pass another port, as the user started odsnap: `npm start` takes its options after `--`
 * (npm keeps `--port` for itself), `npx odsnap` and `node bin/odsnap.js` take them as they are.
 */
export function portOption(port: number): string {
  const byNpmStart = process.env.npm_lifecycle_event === 'start' && /bin\/odsnap\.js/.test(process.env.npm_lifecycle_script ?? '');
  return byNpmStart ? `"npm start -- --port ${port}"` : `--port ${port}`;
}

/** Runs until Ctrl-C or SIGTERM, then lets running requests finish. */
export function untilStopped(server: RunningServer, say: (text: string) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      say('odsnap: stopping; letting running requests finish\n');
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void server.close().then(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
