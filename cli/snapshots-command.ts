import { dataDirOption, defineCommand, reportFormatOption } from './command.ts';
import { formatBytes, formatCount } from '../core/progress.ts';
import { readHistory, type History } from '../core/snapshot/history.ts';
import { textTable } from '../core/text-table.ts';

export const snapshotsCommand = defineCommand({
  name: 'snapshots',
  summary: 'List the snapshots a data directory keeps: when, from where, rows per data set, and the bytes each holds alone and shares.',
  description:
    'A pull hard-links the files it did not change from the snapshot before, and a build links the Parquet files into\n' +
    'its tree. "own" is what only that snapshot holds (what removing it would free), "shared" what it links with another\n' +
    'snapshot or a tree; the total counts each file once. The current snapshot is marked with *.',
  options: {
    data: dataDirOption('read'),
    format: reportFormatOption,
  },
  async run(options, output) {
    const history = await readHistory(options.data);
    for (const { id, error } of history.unreadable)
      output.err(`odsnap: snapshots/${id} has no readable manifest (${error}); a pull that died may have left it, or it was changed by hand\n`);
    if (options.format === 'json') output.out(`${JSON.stringify(history, null, 2)}\n`);
    else
      output.out(`${history.snapshots.length ? asTable(history) : `${options.data} holds no snapshot yet; make one with "odsnap sample" or "odsnap pull"`}\n`);
    return 0;
  },
});

function asTable(history: History): string {
  const datasets = [...new Set(history.snapshots.flatMap((s) => Object.keys(s.rows)))];
  const rows = history.snapshots.map((s) => [
    s.current ? '*' : '',
    s.id,
    s.createdAt.replace(/\.\d+/, ''),
    s.source,
    ...datasets.map((name) => (name in s.rows ? formatCount(s.rows[name]!) : '')),
    formatCount(s.files),
    formatBytes(s.bytes.own),
    formatBytes(s.bytes.shared),
  ]);
  const columns = [
    { title: '' },
    { title: 'id' },
    { title: 'created' },
    { title: 'source' },
    ...datasets.map((name) => ({ title: `${name} rows`, right: true })),
    { title: 'files', right: true },
    { title: 'own', right: true },
    { title: 'shared', right: true },
  ];
  const count = history.snapshots.length;
  return [
    textTable(columns, rows),
    `${count} snapshot${count === 1 ? '' : 's'}, ${formatBytes(history.bytes)} on disk (each file once, however many snapshots link it)`,
    'own: bytes only that snapshot holds, which removing it would free; shared: bytes it links with another snapshot or a static tree (a build links the Parquet files)',
  ].join('\n');
}
