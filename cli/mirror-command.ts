import { z } from 'zod';
import { clockFromEnvironment, type Clock } from '../core/clock.ts';
import type { MirrorOptions } from '../scripts/mirror/mirror.ts';
import { errInJson, type Output } from '../core/progress.ts';
import { parsePolicy } from '../core/snapshot/retention.ts';
import { datasets } from '../datasets/index.ts';
import { parseCadence, type Cadence } from '../scripts/mirror/cadence.ts';
import { dataDirOption, defineCommand, publishingOf, publishingOptions, tilesOption, type ValueOf } from './command.ts';
import { serveCheck } from './pull-command.ts';

const cadence = (example: string) =>
  z.string().transform((text, context) => {
    const parsed = parseCadence(text);
    if ('problem' in parsed) {
      context.addIssue({ code: 'custom', message: `${parsed.problem} (e.g. ${example})` });
      return z.NEVER;
    }
    return parsed as Cadence;
  });

/** The options `mirror` and `start` share: how often, how much to keep, how gently. */
export const keepingOptions = {
  'pull-every': {
    type: 'string',
    value: 'WHEN',
    description: 'how often to pull the registers, catalogues and series: an interval (30m, 1h, 1d) or a cron expression',
    default: '1h',
    check: cadence('1h, or "15 * * * *"'),
  },
  'capture-every': {
    type: 'string',
    value: 'WHEN',
    description: 'how often to capture the live feeds into the live archive: an interval or a cron expression (six fields: seconds first)',
    default: '1m',
    check: cadence('1m, or "*/30 * * * * *"'),
  },
  jitter: {
    type: 'string',
    value: 'SECONDS',
    description: 'at most this long added at random to each pull time, so that mirrors of one upstream do not all ask at once',
    default: '60',
    check: z
      .string()
      .regex(/^\d+(\.\d+)?$/, { error: 'must be a number of seconds' })
      .transform((s) => Number(s) * 1000),
  },
  keep: {
    type: 'string',
    value: 'POLICY',
    description: 'after each pull, remove the snapshots this policy does not keep (as odsnap prune), or none to keep all',
    default: 'last=24,daily=14,weekly=8,monthly=12',
    check: z
      .string()
      .transform((text, context) =>
        text === 'none'
          ? undefined
          : (parsePolicy(text) ??
            (context.addIssue({ code: 'custom', message: 'is a policy like last=24,daily=14 (last, daily, weekly, monthly; each once), or none' }), z.NEVER)),
      ),
  },
} as const;

export const mirrorCommand = defineCommand({
  name: 'mirror',
  summary: 'Keep a data directory current with an upstream, unattended: pulls on a schedule, the live feeds captured every minute.',
  description:
    'Runs until stopped. Pulls (incremental, as odsnap pull) at each time --pull-every names, at once when the last\n' +
    'snapshot is overdue; captures the live feeds at each time --capture-every names into the live archive (DIR/live/),\n' +
    'which the next pull commits into its snapshot; prunes by --keep; with --out, rebuilds the static tree after each\n' +
    'pull. A pull or a capture that fails is tried again, backing off; the snapshot before stays current, and minutes\n' +
    'with no capture are recorded as gaps, with why. How it is doing: DIR/mirror/status.json, which odsnap serve\n' +
    'publishes at /api/public/status and /metrics. odsnap serve --data DIR serves what it pulls, taking up each new\n' +
    "snapshot; odsnap start --from URL does both in one process. Times are the system time zone's for cron expressions.",
  options: {
    from: {
      type: 'string',
      value: 'URL',
      description: 'v1 upstream to mirror (or ODSNAP_UPSTREAM)',
      check: z.url({ protocol: /^https?$/, error: 'must be the http(s) address of a v1 service' }).optional(),
    },
    data: dataDirOption('create', 'to keep current'),
    out: {
      type: 'string',
      value: 'DIR',
      description: 'also rebuild the static tree here after each pull (without the site unless --site)',
      directory: 'create',
    },
    site: { type: 'boolean', description: 'with --out: build the site too' },
    tiles: tilesOption,
    ...publishingOptions,
    ...keepingOptions,
  },
  async run(options, output) {
    const from = options.from ?? (process.env.ODSNAP_UPSTREAM || undefined);
    if (!from || !z.url({ protocol: /^https?$/ }).safeParse(from).success) {
      output.err(`odsnap mirror: needs --from URL (or ODSNAP_UPSTREAM), the http(s) address of a v1 service${from ? `, not "${from}"` : ''}\n`);
      return 2;
    }
    const log = eventLog(output);
    const stop = new AbortController();
    // Stopped at once: a pull killed at any moment resumes where it stopped, and a capture is in the
    // archive whole or not at all; waiting for a pull to end could take its whole run.
    const stopping = (signal: NodeJS.Signals) => {
      log('stopped', { signal, then: 'the next run resumes an unfinished pull' });
      stop.abort();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    };
    process.once('SIGINT', stopping).once('SIGTERM', stopping);
    const { runMirror } = await import('../scripts/mirror/mirror.ts');
    log('mirroring', { from, data: options.data, pulls: options['pull-every'].text, captures: options['capture-every'].text });
    const tree = options.out ? { out: options.out, site: Boolean(options.site), tiles: options.tiles, ...publishingOf(options) } : undefined;
    await runMirror(mirrorRun(options, { from, clock: clockFromEnvironment(), tree, output, log, signal: stop.signal }));
    process.removeListener('SIGINT', stopping).removeListener('SIGTERM', stopping);
    return 0;
  },
});

/** The tree a mirror rebuilds after each pull, as \`odsnap build\` would write it with the same options. */
export type MirrorTree = { readonly out: string; readonly site: boolean; readonly tiles: string } & ReturnType<typeof publishingOf>;

type Keeping = { readonly data: string } & { readonly [K in keyof typeof keepingOptions]: ValueOf<(typeof keepingOptions)[K]> };

/**
 * What `mirror` and `start` hand the mirror: their shared options, the pulls' serve check, and
 * the tree rebuilt after each pull when there is one.
 */
export function mirrorRun(
  options: Keeping,
  run: {
    readonly from: string;
    readonly clock: Clock;
    readonly tree: MirrorTree | undefined;
    readonly output: Output;
    readonly log: (event: string, fields?: Record<string, unknown>) => void;
    readonly signal: AbortSignal;
  },
): MirrorOptions {
  const { tree, log } = run;
  return {
    dataDir: options.data,
    from: run.from,
    datasets,
    clock: run.clock,
    pulls: options['pull-every'],
    captures: options['capture-every'],
    jitterMs: options.jitter,
    ...(options.keep ? { retention: options.keep } : {}),
    servable: serveCheck(options.data, (event, fields) => log(event, fields)),
    ...(tree
      ? {
          published: async (snapshot: string) => {
            const { buildStaticForCommand } = await import('../scripts/static/build-on-thread.ts');
            const result = await buildStaticForCommand({ dataDir: options.data, ...tree });
            log('static tree built', { snapshot, files: result.files, written: result.written, seconds: Math.round(result.seconds * 10) / 10 });
          },
        }
      : {}),
    output: run.output,
    log,
    signal: run.signal,
  };
}

/**
 * The mirror's events: for a person at a terminal, a readable line (time, event, then key=value);
 * elsewhere one JSON object per line, for machines (either, when the command settled its format).
 */
export function eventLog(output: Output): (event: string, fields?: Record<string, unknown>) => void {
  return (event, fields = {}) => {
    const time = new Date().toISOString();
    if (errInJson(output)) {
      output.err(`${JSON.stringify({ time, event, ...fields })}\n`);
      return;
    }
    const detail = Object.entries(fields).map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
    output.err(`${time.slice(11, 19)} ${event}${detail.length ? `  ${detail.join(' ')}` : ''}\n`);
  };
}
