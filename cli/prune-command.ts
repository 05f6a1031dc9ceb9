import { z } from 'zod';
import { dataDirOption, defineCommand, UsageError } from './command.ts';
import { formatBytes } from '../core/progress.ts';
import { prune } from '../core/snapshot/retention.ts';

/** A number of snapshots to keep, from the option's text. */
const count = z.coerce.number<string>({ error: 'must be a whole number' }).int('must be a whole number').nonnegative('must be 0 or more').optional();

export const pruneCommand = defineCommand({
  name: 'prune',
  summary: 'Remove the snapshots a retention policy does not keep; never the current one, one in use, or any while a pull runs.',
  description:
    'Keeps the newest --keep-last snapshots, and the newest of each of the newest --keep-daily days, --keep-weekly ISO\n' +
    'weeks and --keep-monthly months that have one (by when each was created, UTC). Says what it keeps and why, what it\n' +
    'removes, and the bytes that frees (a file hard-linked into a kept snapshot frees nothing).',
  options: {
    data: dataDirOption('read'),
    'keep-last': { type: 'string', value: 'N', description: 'the newest N snapshots', check: count },
    'keep-daily': { type: 'string', value: 'D', description: 'the newest snapshot of each of the newest D days', check: count },
    'keep-weekly': { type: 'string', value: 'W', description: 'the newest snapshot of each of the newest W weeks', check: count },
    'keep-monthly': { type: 'string', value: 'M', description: 'the newest snapshot of each of the newest M months', check: count },
    'dry-run': { type: 'boolean', description: 'say what would be removed, remove nothing' },
  },
  async run(options, output) {
    const policy = { last: options['keep-last'], daily: options['keep-daily'], weekly: options['keep-weekly'], monthly: options['keep-monthly'] };
    if (Object.values(policy).every((n) => n === undefined))
      throw new UsageError('say what to keep: --keep-last, --keep-daily, --keep-weekly or --keep-monthly');
    const result = await prune(options.data, policy, { dryRun: options['dry-run'] });
    for (const decision of result.decisions)
      output.out(
        `${(decision.kept.length ? 'keep' : result.dryRun ? 'would remove' : 'remove').padEnd(12)}  ${decision.id}${decision.kept.length ? `  (${decision.kept.join(', ')})` : ''}\n`,
      );
    const n = result.removed.length;
    output.err(
      `odsnap: ${result.dryRun ? 'would remove' : 'removed'} ${n} snapshot${n === 1 ? '' : 's'} of ${result.decisions.length}, ${result.dryRun ? 'freeing' : 'freed'} ${formatBytes(result.freedBytes)}\n`,
    );
    return 0;
  },
});
