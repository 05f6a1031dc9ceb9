import { z } from 'zod';
import { dataDirOption, defineCommand, reportFormatOption } from './command.ts';
import { datasets } from '../datasets/index.ts';
import { openDatabase } from '../core/db/duckdb.ts';
import { formatCount, Progress } from '../core/progress.ts';
import { diffSnapshots, type SnapshotDiff } from '../core/snapshot/diff.ts';
import { listSnapshots } from '../core/snapshot/history.ts';
import { openSnapshot } from '../core/snapshot/read.ts';
import { markReading } from '../core/snapshot/readers.ts';
import { textTable } from '../core/text-table.ts';

export const diffCommand = defineCommand({
  name: 'diff',
  summary: 'What changed between two snapshots: per table, rows added, removed and changed by key, which columns, a few keys.',
  description:
    'TO defaults to the current snapshot and FROM to the one before TO; an id may be shortened to a prefix only one\n' +
    'snapshot has. Files the two manifests list with the same sha256 are not read. "reordered" counts rows whose only\n' +
    "change is their place in the upstream's list.",
  options: {
    data: dataDirOption('read'),
    dataset: { type: 'string', value: 'NAME', description: 'only this data set' },
    format: reportFormatOption,
  },
  positionals: {
    name: 'SNAPSHOTS',
    description: 'FROM and TO, snapshot ids (both optional)',
    check: z
      .string()
      .optional()
      .transform((text) => text?.split(/\s+/).filter(Boolean) ?? [])
      .refine((ids) => ids.length <= 2, 'takes at most two snapshot ids, FROM and TO'),
  },
  async run(options, output) {
    const listed = (await listSnapshots(options.data)).filter((s) => 'manifest' in s);
    const ids = listed.map((s) => s.id);
    const find = (given: string) => {
      const matching = ids.filter((id) => id.startsWith(given));
      if (matching.length === 1) return matching[0]!;
      throw new Error(
        matching.length
          ? `"${given}" could be ${matching.join(', ')}; give more of the id`
          : `${options.data} holds no snapshot "${given}"; run "odsnap snapshots --data ${options.data}" for the list`,
      );
    };
    const current = listed.find((s) => s.current)?.id ?? ids.at(-1);
    const to = options.SNAPSHOTS[1] !== undefined ? find(options.SNAPSHOTS[1]) : current;
    const from = options.SNAPSHOTS[0] !== undefined ? find(options.SNAPSHOTS[0]) : ids[ids.indexOf(to!) - 1];
    if (!to) throw new Error(`${options.data} holds no snapshot; a diff needs two`);
    if (!from)
      throw new Error(
        ids.length === 1
          ? `${options.data} holds one snapshot: a diff needs two; pull again`
          : `no snapshot comes before ${to}; name the one to compare it with`,
      );
    if (options.dataset !== undefined && !datasets.some((d) => d.name === options.dataset))
      throw new Error(`no data set "${options.dataset}"; the data sets are ${datasets.map((d) => d.name).join(', ')}`);
    const progress = new Progress(output);
    const db = await openDatabase({ memoryLimit: '512MB' });
    const unmark = [markReading(options.data, from), markReading(options.data, to)];
    try {
      const diff = await diffSnapshots(db, await openSnapshot(options.data, from), await openSnapshot(options.data, to), datasets, {
        dataset: options.dataset,
        onTable: (table) => progress.update(`comparing ${table}`),
      });
      progress.clear();
      output.out(options.format === 'json' ? `${JSON.stringify(diff, null, 2)}\n` : asText(diff));
    } finally {
      db.close();
      for (const done of unmark) done();
    }
    return 0;
  },
});

function asText(diff: SnapshotDiff): string {
  const same = diff.tables.reduce((sum, t) => sum + t.files.same, 0);
  const read = diff.tables.reduce((sum, t) => sum + t.files.read, 0);
  const rows = diff.tables.map((t) => [
    `${t.dataset}/${t.table}`,
    formatCount(t.added),
    formatCount(t.removed),
    t.key ? formatCount(t.changed) : '',
    t.key ? formatCount(t.reordered) : '',
    Object.entries(t.columns)
      .map(([column, n]) => `${column} ${formatCount(n)}`)
      .join(', '),
  ]);
  const columns = [
    { title: 'table' },
    { title: 'added', right: true },
    { title: 'removed', right: true },
    { title: 'changed', right: true },
    { title: 'reordered', right: true },
    { title: 'columns changed' },
  ];
  const examples = diff.tables.flatMap((t) =>
    (['added', 'removed', 'changed'] as const)
      .filter((change) => t.examples[change].length)
      .map((change) => `  ${t.dataset}/${t.table} ${change}: ${t.examples[change].join(', ')}${t[change] > t.examples[change].length ? ', …' : ''}`),
  );
  return [
    `from ${diff.from} to ${diff.to} (${formatCount(same)} files the same in both, not read; ${formatCount(read)} read)`,
    textTable(columns, rows),
    ...(examples.length ? ['', 'for example (keys):', ...examples] : []),
    '',
  ].join('\n');
}
