import { join } from 'node:path';
import { z } from 'zod';
import { datasets } from '../datasets/index.ts';
import { defaultSeed, defaultUntil, scales, type SampleSettings } from '../datasets/vocabulary/sample.ts';
import { dataDirOption, defineCommand, publishingOf, publishingOptions, tilesOption } from './command.ts';
import type { LogFormat, Output } from '../core/progress.ts';
import { counted, formatCount, messageLine, Progress } from '../core/progress.ts';
import { PullReport } from '../scripts/pull/report.ts';
import { currentSnapshotId } from '../core/snapshot/layout.ts';
import { openSnapshot, shapeMismatch } from '../core/snapshot/read.ts';
import { canBuildSite } from '../scripts/static/site.ts';
import { builtSnapshotId, INDEX } from '../core/published-tree.ts';
import { pullSummary } from './pull-command.ts';
import { explainListenError, untilStopped } from './serve-command.ts';
import { eventLog, keepingOptions, mirrorRun } from './mirror-command.ts';
import { clockFromEnvironment, type Clock } from '../core/clock.ts';
import { archivedOrSnapshotted } from './live-rows.ts';
import { logFormatOption, logWriter } from './log-lines.ts';
import { serveSampleUpstream, type SampleUpstream } from './sample-upstream.ts';

/** Where `start` keeps the sample city it serves to itself as the upstream, inside the data directory. */
export const sampleUpstreamDir = (dataDir: string) => join(dataDir, 'sample-upstream');

export const startCommand = defineCommand({
  name: 'start',
  summary: 'Set up everything on first run (pull the small sample city, build the static tree and the site), then serve it all.',
  description:
    'What `npm start` runs. On first run: generates the small sample city, serves it on a loopback port as the\n' +
    'upstream, pulls it into a snapshot, builds the static tree and the site, then serves the site, the v1 API,\n' +
    'SQL and the tree on one address. Later starts reuse the snapshot and the tree. --rebuild pulls and builds\n' +
    'again; --from (or ODSNAP_UPSTREAM) pulls from a real v1 service instead of the sample city, and pulls again\n' +
    'when the current snapshot came from elsewhere. With --from it then keeps the mirror current as odsnap mirror\n' +
    'does (pulls on --pull-every, the live feeds captured on --capture-every, the tree and the site rebuilt after\n' +
    'each pull, snapshots pruned by --keep), unless --once. Ctrl-C stops.\n\n' +
    'At a terminal (stdout and stderr both) every line is readable: the steps, the pull, the address, the\n' +
    "server's and the mirror's events. Elsewhere (a pipe, a file, a service manager) every line is JSON: a\n" +
    'step as { time, msg }, an event as { time, event, ... }, as odsnap serve writes its own. --log-format\n' +
    'says which.',
  options: {
    data: dataDirOption('create'),
    out: { type: 'string', value: 'DIR', description: 'where the static tree and the site go', default: 'dist' },
    from: {
      type: 'string',
      value: 'URL',
      description: 'v1 upstream to pull from (or ODSNAP_UPSTREAM; default: the sample city)',
      check: z.url({ protocol: /^https?$/, error: 'must be the http(s) address of a v1 service' }).optional(),
    },
    rebuild: { type: 'boolean', description: 'pull and build again even if a snapshot and a tree exist' },
    scale: {
      type: 'string',
      value: 'SCALE',
      description: `size of the sample city pulled when there is no --from (${scales.join(' | ')})`,
      default: 'small',
      check: z.enum(scales, { error: `must be one of ${scales.join(', ')}` }),
    },
    port: {
      type: 'string',
      value: 'PORT',
      description: 'port to serve on',
      default: '4321',
      check: z
        .string()
        .regex(/^\d{1,5}$/, { error: 'must be a port number' })
        .transform(Number)
        .pipe(z.number().max(65_535, { error: 'must be a port number' })),
    },
    tiles: tilesOption,
    ...publishingOptions,
    once: { type: 'boolean', description: 'with --from: serve what was pulled, without keeping it current' },
    ...keepingOptions,
    'log-format': {
      ...logFormatOption,
      description: 'json | pretty: every line as JSON, or readable (default: pretty when stdout and stderr are terminals, else json)',
    },
  },
  async run(options, streams) {
    // One format for both streams, whoever writes on them: a log that takes either stream, or both
    // (2>&1), meets lines of one kind.
    const format = options['log-format'] ?? (streams.interactive && streams.terminal ? 'pretty' : 'json');
    const output: Output = { ...streams, format };
    const progress = new Progress(output);
    const clock = clockFromEnvironment();
    const from = options.from ?? (process.env.ODSNAP_UPSTREAM || undefined);
    if (from && !z.url({ protocol: /^https?$/ }).safeParse(from).success) {
      output.err(`odsnap start: ODSNAP_UPSTREAM must be the http(s) address of a v1 service, not "${from}"\n`);
      return 2;
    }
    let id = options.rebuild ? undefined : await currentSnapshotId(options.data);
    // A snapshot of the sample city is no answer to a start that names a real upstream.
    if (id && from && (await upstreamOf(options.data)) !== from.replace(/\/+$/, '')) id = undefined;
    // Nor is one an older odsnap wrote with other tables: it is pulled again, from nothing.
    const outdated = id ? shapeMismatch(await openSnapshot(options.data), datasets) : undefined;
    if (outdated) {
      progress.step(`snapshot ${id} was written by another version of odsnap (${outdated}): pulling again`);
      id = undefined;
    }
    if (id) progress.step(`using snapshot ${id} in ${options.data}`);
    else {
      const pulled = await pullSnapshot(
        options.data,
        from,
        { scale: options.scale, seed: defaultSeed, until: defaultUntil },
        Boolean(options.rebuild),
        progress,
        output,
        clock,
      );
      if (!pulled) return 1;
      id = pulled;
    }
    // What the command runs is loaded when it runs: `odsnap --help` and the other commands start without it.
    const [{ buildStaticForCommand }, { startServer }, { staticTree }] = await Promise.all([
      import('../scripts/static/build-on-thread.ts'),
      import('../server/index.ts'),
      import('../server/static-tree.ts'),
    ]);
    if (options.rebuild || builtSnapshotId(options.out) !== id) {
      progress.step(`building the static tree into ${options.out}`);
      const result = await buildStaticForCommand({
        dataDir: options.data,
        out: options.out,
        site: canBuildSite(),
        tiles: options.tiles,
        ...publishingOf(options),
        onStep: (text) => progress.step(text),
        onProgress: ({ endpoint, files }) => progress.update(() => `${endpoint}: ${counted(files, 'file')}`),
      });
      progress.step(`static tree built: ${formatCount(result.files)} files, ${formatCount(result.written)} written, in ${result.seconds.toFixed(1)} s`);
    } else progress.step(`using the static tree in ${options.out}`);

    const server = await startServer({
      dataDir: options.data,
      datasets,
      port: options.port,
      tree: staticTree(options.out),
      // Ages and lags on the mirror's clock (ODSNAP_CLOCK, which tests and benches run faster).
      clock,
      latestLive: archivedOrSnapshotted(options.data),
      log: logWriter(output, format),
      logRequests: false,
    }).catch(explainListenError('127.0.0.1', options.port));
    const url = server.url.replace('127.0.0.1', 'localhost');
    const keeping = from && !options.once;
    // Loaded before the address is printed: Ctrl-C is handled from the moment anyone can use it.
    const mirror = keeping ? await import('../scripts/mirror/mirror.ts') : undefined;
    // Listened for before then too: a SIGINT that comes with no listener yet kills the process, and
    // a reader of the address may send one at once.
    const stopped = untilStopped(server, format === 'json' ? (text) => output.err(messageLine(text.trim())) : output.err);
    output.out(servingText(format, id, url, keeping ? { pulls: options['pull-every'].text, captures: options['capture-every'].text } : undefined));
    const stop = new AbortController();
    if (mirror && from) {
      const log = eventLog(output);
      const tree = { out: options.out, site: canBuildSite(), tiles: options.tiles, ...publishingOf(options) };
      void mirror
        .runMirror(mirrorRun(options, { from, clock, tree, output, log, signal: stop.signal }))
        .catch((error: Error) => log('mirror stopped', { error: error.message }));
    }
    await stopped;
    stop.abort();
    // A pull under way is not waited for: it resumes at the next start.
    if (mirror) process.exit(0);
    return 0;
  },
});

/**
 * A new snapshot pulled from `from`, or else from the sample city served on a loopback port
 * for the time of the pull: exactly what a pull from a real service does. Its id, or undefined when
 * the pull failed (its summary says why; the next start resumes it).
 */
async function pullSnapshot(
  dataDir: string,
  from: string | undefined,
  sample: SampleSettings,
  again: boolean,
  progress: Progress,
  output: Output,
  clock: Clock,
): Promise<string | undefined> {
  let upstream: SampleUpstream | undefined;
  if (!from) {
    const sampleDir = sampleUpstreamDir(dataDir);
    // Generated again when asked, missing, or of another odsnap's shape.
    const usable = !again && (await currentSnapshotId(sampleDir)) !== undefined && !shapeMismatch(await openSnapshot(sampleDir), datasets);
    if (!usable) {
      progress.step(`generating the ${sample.scale} sample city into ${sampleDir}`);
      const { generateSample } = await import('../scripts/sample/generate.ts');
      await generateSample({
        dataDir: sampleDir,
        datasets,
        settings: sample,
        step: (text) => progress.step(text),
        progress: (text) => progress.update(text),
      });
    }
    upstream = await serveSampleUpstream(sampleDir);
    progress.step(`serving the sample city as the upstream at ${upstream.url}`);
  }
  const url = from ?? upstream!.url;
  progress.step(`pulling from ${url} into ${dataDir}`);
  const report = new PullReport(output);
  const { pull } = await import('../scripts/pull/pull.ts');
  try {
    const result = await pull({ dataDir, from: url, datasets, full: again, report, now: clock.now, ...(from ? {} : { sample }) });
    const summary = pullSummary(result, report);
    // As JSON, the summary's table is one message, its lines kept in msg.
    output.err(output.format === 'json' ? messageLine(summary.trim(), { ok: result.ok }) : summary);
    return result.ok ? result.snapshot!.id : undefined;
  } finally {
    upstream?.stop();
  }
}

/**
 * What start says once it serves: for a person, the address and what to find there; for a
 * machine, one message with the snapshot and the address, and the mirror's status and cadences
 * when it keeps the mirror current.
 */
function servingText(format: LogFormat, id: string, url: string, keeping: { readonly pulls: string; readonly captures: string } | undefined): string {
  const status = `${url}/api/public/status`;
  if (format === 'json') return messageLine(`odsnap is serving snapshot ${id} at ${url}`, { snapshot: id, url, ...(keeping ? { status, ...keeping } : {}) });
  const hints = [
    [`${url}/`, 'the site: docs, data sets, downloads, SQL in the browser'],
    [`${url}/api/public`, 'every data set and endpoint (the v1 API)'],
    [`${url}/api/public/rcn/transactions?limit=5`, 'a v1 request'],
    [`${url}/${INDEX}`, 'the static tree'],
    [`${url}/api/sql?q=SELECT+count(*)+FROM+citybike_rides`, 'read-only SQL'],
    ...(keeping ? [[status, 'how the mirror is doing']] : []),
  ];
  const width = Math.max(...hints.map(([address]) => address!.length));
  return [
    '',
    `odsnap is serving snapshot ${id} at ${url}`,
    ...hints.map(([address, what]) => `  ${address!.padEnd(width)}  ${what}`),
    ...(keeping
      ? [
          '',
          `Keeping it current: pulls ${keeping.pulls === '1h' ? 'hourly' : `on ${keeping.pulls}`}, the live feeds captured ${keeping.captures === '1m' ? 'every minute' : `on ${keeping.captures}`}.`,
        ]
      : []),
    '',
    'Ctrl-C stops.',
    '',
  ].join('\n');
}

/** The upstream the current snapshot was pulled from, if it was pulled. */
async function upstreamOf(dataDir: string): Promise<string | undefined> {
  const { source } = (await openSnapshot(dataDir)).manifest;
  return source.kind === 'pull' && !source.sample ? source.upstream : undefined;
}
