import { dataDirOption, defineCommand } from './command.ts';
import { formatBytes, Progress } from '../core/progress.ts';
import { openSnapshot } from '../core/snapshot/read.ts';
import { markReading } from '../core/snapshot/readers.ts';

export const verifyCommand = defineCommand({
  name: 'verify',
  summary: 'Re-check every file of a snapshot against its manifest (size and sha256), and report each mismatch.',
  description: 'Exits 0 when everything matches and 1 when anything is missing, changed or unlisted.',
  options: {
    data: dataDirOption('read'),
    snapshot: { type: 'string', value: 'ID', description: 'snapshot to check (default: the current one)' },
  },
  async run(options, output) {
    const snapshot = await openSnapshot(options.data, options.snapshot);
    const progress = new Progress(output);
    const { verifySnapshot } = await import('../core/snapshot/verify.ts');
    const unmark = markReading(options.data, snapshot.id);
    const report = await verifySnapshot(snapshot.dir, (path) => progress.update(`checking ${path}`)).finally(unmark);
    for (const mismatch of report.mismatches) output.err(`mismatch: ${mismatch}\n`);
    if (report.mismatches.length) {
      progress.step(`snapshot ${snapshot.id}: ${report.mismatches.length} mismatch${report.mismatches.length === 1 ? '' : 'es'}`);
      return 1;
    }
    progress.step(`snapshot ${snapshot.id}: ${report.files} files, ${formatBytes(report.bytes)}, all match the manifest`);
    return 0;
  },
});
