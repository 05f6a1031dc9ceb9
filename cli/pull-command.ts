import { z } from 'zod';
import { parsePolicy, prune } from '../core/snapshot/retention.ts';
import { datasets } from '../datasets/index.ts';
import { dataDirOption, defineCommand } from './command.ts';
import { formatBytes, formatCount } from '../core/progress.ts';
import type { PullResult } from '../scripts/pull/pull.ts';
import { duration, PullReport } from '../scripts/pull/report.ts';
import { unlearned } from '../scripts/pull/range-rules.ts';
import { defaultUpstreamOptions } from '../scripts/pull/upstream.ts';
import { defaultPullLimits, parseSize, QUARANTINE_FLOOR, sizeText } from '../scripts/pull/limits.ts';
import { openSnapshot } from '../core/snapshot/read.ts';

const wholeNumber = (least: number) =>
  z
    .string()
    .regex(/^\d+$/, { error: 'must be a whole number' })
    .transform(Number)
    .pipe(z.number().min(least, { error: `must be at least ${least}` }));
/** Seconds as milliseconds. */
const seconds = z
  .string()
  .regex(/^\d+(\.\d+)?$/, { error: 'must be a number of seconds' })
  .transform((s) => Number(s) * 1000);
const size = z
  .string()
  .transform((text, context) => parseSize(text) ?? (context.addIssue({ code: 'custom', message: 'must be a size such as 1MiB, 512MB or 8GiB' }), z.NEVER));

const names = datasets.map((d) => d.name);

export const pullCommand = defineCommand({
  name: 'pull',
  summary: 'Crawl the data sets from a v1 upstream into a new snapshot, fetching only what is new.',
  description:
    'Builds on the current snapshot when it was pulled from the same upstream: readings, rides and\n' +
    'history from where it left off (two days again, for late data), details only of new or changed\n' +
    'items, untouched Parquet files linked rather than rewritten. Checkpoints as it goes: run the same\n' +
    'command again after a failure or a kill and it resumes. The new snapshot becomes current only when\n' +
    'complete and verified; until then the previous one stays current. Exit code 1 when it failed.\n' +
    'To try it here: "odsnap serve --data DIR" serves a sample city, then --from http://127.0.0.1:4321.\n' +
    'The --max-… options bound what it takes from the upstream, whatever the upstream says; each failure\n' +
    'they cause names its option. Before the new snapshot becomes current, its serving database is built\n' +
    'as "odsnap serve" would build it (kept for the server), so a snapshot no server can open never is.',
  options: {
    from: {
      type: 'string',
      value: 'URL',
      description: 'base URL of the upstream (paths start with /api/public/...)',
      check: z.url({ protocol: /^https?$/, error: "needs the upstream's http(s) address, e.g. --from http://127.0.0.1:4321" }),
    },
    data: dataDirOption('create', 'to pull into'),
    concurrency: {
      type: 'string',
      value: 'N',
      description: 'requests in flight at once',
      default: String(defaultUpstreamOptions.concurrency),
      check: z
        .string()
        .regex(/^\d+$/, { error: 'must be a whole number' })
        .transform(Number)
        .pipe(z.number().min(1, { error: 'must be at least 1' }).max(64, { error: 'must be at most 64' })),
    },
    rate: {
      type: 'string',
      value: 'REQ_PER_S',
      description: 'at most this many requests per second; 0 for no limit',
      default: '0',
      check: z
        .string()
        .regex(/^\d+(\.\d+)?$/, { error: 'must be a number of requests per second' })
        .transform(Number),
    },
    datasets: {
      type: 'string',
      value: 'a,b',
      description: `data sets to pull (${names.join(', ')}); the others stay as they were`,
      default: names.join(','),
      check: z
        .string()
        .transform((text) =>
          text
            .split(',')
            .map((name) => name.trim())
            .filter(Boolean),
        )
        .pipe(
          z
            .array(z.enum(names as [string, ...string[]], { error: `names a data set that does not exist; choose from ${names.join(', ')}` }))
            .min(1, { error: 'needs at least one data set' }),
        ),
    },
    full: { type: 'boolean', description: 'fetch everything again, not only what is new' },
    timeout: {
      type: 'string',
      value: 'SECONDS',
      description: 'per request, for the whole answer',
      default: String(defaultUpstreamOptions.timeoutMs / 1000),
      check: seconds.pipe(z.number().positive({ error: 'must be more than 0' })),
    },
    retries: {
      type: 'string',
      value: 'N',
      description: 'attempts after the first before a request fails',
      default: String(defaultUpstreamOptions.retries),
      check: z.string().regex(/^\d+$/, { error: 'must be a whole number' }).transform(Number),
    },
    'max-records': {
      type: 'string',
      value: 'N',
      description: 'the largest total a paged list may report (pagination.total)',
      default: String(defaultPullLimits.maxRecords),
      check: wholeNumber(1),
    },
    'max-pages': {
      type: 'string',
      value: 'N',
      description: 'pages of one window of rides, at most',
      default: String(defaultPullLimits.maxPages),
      check: wholeNumber(1),
    },
    'max-journal': {
      type: 'string',
      value: 'SIZE',
      description: 'the largest the journal of a pull grows (DIR/.pull/)',
      default: sizeText(defaultPullLimits.maxJournalBytes).replace(' ', ''),
      check: size,
    },
    'max-answers': {
      type: 'string',
      value: 'SIZE',
      description:
        "the most the upstream's answers of a pull may take once read, as its snapshot stages them (default: the free space on DIR's disk when the pull begins)",
      check: size.optional(),
    },
    'max-value': {
      type: 'string',
      value: 'SIZE',
      description: 'the largest value stored (a string, or JSON as text): a record holding a larger one is quarantined',
      default: sizeText(defaultPullLimits.maxValueBytes).replace(' ', ''),
      check: size.pipe(z.number().min(1024, { error: 'must be at least 1KiB' })),
    },
    'max-quarantine': {
      type: 'string',
      value: 'PERCENT',
      description: `the share of a table's records quarantined (past ${QUARANTINE_FLOOR} of them, or all) that fails the pull rather than publish the table gutted`,
      default: String(defaultPullLimits.maxQuarantined * 100),
      check: z
        .string()
        .regex(/^\d+(\.\d+)?$/, { error: 'must be a percentage, e.g. 1 or 0.5' })
        .transform((s) => Number(s) / 100)
        .pipe(z.number().max(1, { error: 'must be at most 100' })),
    },
    'max-wait': {
      type: 'string',
      value: 'SECONDS',
      description: 'the longest a request waits to be tried again, in all, Retry-After included; a longer wait fails it',
      default: String(defaultUpstreamOptions.maxWaitMs / 1000),
      check: seconds,
    },
    'no-serve-check': { type: 'boolean', description: 'make the new snapshot current without first building its serving database' },
    prune: {
      type: 'string',
      value: 'POLICY',
      description: 'once the new snapshot is current, remove those this policy does not keep, e.g. last=7,weekly=4,monthly=12 (as odsnap prune --keep-…)',
      check: z
        .string()
        .transform(
          (text, context) =>
            parsePolicy(text) ??
            (context.addIssue({ code: 'custom', message: 'is a policy like last=7,weekly=4,monthly=12 (last, daily, weekly, monthly; each once)' }), z.NEVER),
        )
        .optional(),
    },
  },
  async run(options, output) {
    const report = new PullReport(output);
    report.event('pulling', { from: options.from, data: options.data, datasets: options.datasets.join(','), full: Boolean(options.full) });
    const { pull } = await import('../scripts/pull/pull.ts');
    const result = await pull({
      dataDir: options.data,
      from: options.from,
      datasets,
      only: options.datasets,
      full: options.full,
      upstream: { concurrency: options.concurrency, rate: options.rate, timeoutMs: options.timeout, retries: options.retries, maxWaitMs: options['max-wait'] },
      limits: {
        maxRecords: options['max-records'],
        maxPages: options['max-pages'],
        maxJournalBytes: options['max-journal'],
        ...(options['max-answers'] === undefined ? {} : { maxAnswerBytes: options['max-answers'] }),
        maxValueBytes: options['max-value'],
        maxQuarantined: options['max-quarantine'],
      },
      servable: options['no-serve-check'] ? undefined : serveCheck(options.data, (event, fields) => report.event(event, fields)),
      report,
    });
    output.err(pullSummary(result, report));
    if (!result.ok) return 1;
    output.out(`${result.snapshot!.dir}\n`);
    if (options.prune) {
      const pruned = await prune(options.data, options.prune);
      output.err(
        `odsnap: pruned ${pruned.removed.length} snapshot${pruned.removed.length === 1 ? '' : 's'} of ${pruned.decisions.length} (${pruned.removed.join(', ') || 'none'}), freeing ${formatBytes(pruned.freedBytes)}\n`,
      );
    }
    return 0;
  },
});

/**
 * The check a pull makes before its snapshot becomes current: the snapshot's serving database
 * built as the server would build it (and kept for the server), failing when no server could.
 */
export const serveCheck =
  (dataDir: string, log: (event: string, fields: Record<string, unknown>) => void = () => {}) =>
  async ({ id }: { readonly id: string }): Promise<void> => {
    const { ensureServeDatabase } = await import('../server/serve-database.ts');
    log('checking the snapshot can be served', { snapshot: id });
    try {
      await ensureServeDatabase(await openSnapshot(dataDir, id), datasets, ({ event, ...fields }) => log(String(event), fields));
    } catch (error) {
      throw new Error(`the new snapshot ${id} cannot be served, so it was not made current: ${(error as Error).message.split('\n')[0]}`);
    }
  };

/** The end of a pull in a few lines: what it fetched, what it kept, what went wrong. */
export function pullSummary(result: PullResult, report: PullReport): string {
  const lines: string[] = [''];
  const perDataset = [...report.tallies].map(
    ([name, t]) =>
      `  ${name.padEnd(13)} ${formatCount(t.requests).padStart(9)} requests ${formatCount(t.retries).padStart(6)} retries ${formatCount(t.records).padStart(12)} records` +
      `${t.quarantined ? `  ${formatCount(t.quarantined)} quarantined` : ''}${t.resumed ? `  (${formatCount(t.resumed)} units from the interrupted run)` : ''}`,
  );
  lines.push(
    `${result.ok ? 'pulled' : 'pull failed'} in ${duration(result.seconds)}: ${formatCount(result.requests)} requests, ${formatCount(result.retries)} retries, ` +
      `${formatBytes(result.bytes)} received, ${formatCount(result.quarantined)} records quarantined`,
    ...perDataset,
  );
  if (result.ok) {
    const snapshot = result.snapshot!;
    lines.push(`snapshot ${snapshot.id} is current:`);
    for (const t of result.tables)
      lines.push(
        `  ${t.table.padEnd(30)} ${formatCount(t.rows).padStart(12)} rows${t.carried ? ` (${formatCount(t.carried)} kept from the previous snapshot)` : ''}`,
      );
    if (snapshot.manifest.quarantine) {
      for (const [name, q] of Object.entries(snapshot.manifest.quarantine))
        lines.push(`quarantined ${name}: ${formatCount(q.records)} records in ${snapshot.dir}/${q.path}`);
    }
    for (const [name, filters] of Object.entries(snapshot.manifest.unread ?? {})) {
      for (const [filter, { records, example }] of Object.entries(filters)) {
        lines.push(
          `not understood: ${name} ${filter}: ${formatCount(records)} records hold nothing the filter reads (e.g. ${example}); it will not match them`,
        );
      }
    }
    for (const [endpoint, { range, unlearned: said = [] }] of Object.entries(snapshot.manifest.endpoints ?? {})) {
      for (const line of [...(range ? unlearned(endpoint, range) : []), ...said]) lines.push(`not learned: ${line}`);
    }
  } else {
    lines.push(
      result.setAside
        ? `the current snapshot is unchanged; the journal was set aside in ${result.setAside} (what caused this may be in it), so the next pull starts afresh. ${result.failures.length} failure(s):`
        : `the current snapshot is unchanged; run the same command again to resume. ${result.failures.length} failure(s):`,
    );
    for (const failure of result.failures.slice(0, 20)) lines.push(`  ${failure}`);
    if (result.failures.length > 20) lines.push(`  … and ${result.failures.length - 20} more`);
  }
  return lines.join('\n') + '\n';
}
