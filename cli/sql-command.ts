import { writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { datasets } from '../datasets/index.ts';
import { encode, formats } from '../server/sql/formats.ts';
import type { SqlResult } from '../server/sql/sandbox.ts';
import { defineCommand, UsageError } from './command.ts';
import { defaultDataDir } from '../core/snapshot/layout.ts';
import { openSnapshot } from '../core/snapshot/read.ts';

/** A result as an aligned text table, for reading in a terminal. */
function table(result: SqlResult): string {
  const cell = (value: unknown) => {
    const text = value === null ? 'NULL' : typeof value === 'object' ? JSON.stringify(value) : String(value);
    return text.length > 48 ? `${text.slice(0, 47)}…` : text;
  };
  const rows = [result.columns.map((c) => c.name), ...result.rows.map((row) => row.map(cell))];
  const widths = result.columns.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((text, i) => text.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(rows[0]!), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.slice(1).map(line), `(${result.rows.length} row${result.rows.length === 1 ? '' : 's'})`, ''].join('\n');
}

export const sqlCommand = defineCommand({
  name: 'sql',
  summary: 'Run read-only SQL over a snapshot, with a view per table (rcn_transactions, bike_counter_readings, …).',
  description:
    'The same sandbox as GET /api/sql: one SELECT, reading only the snapshot, within 10 s and 100,000 rows.\n' +
    'Example: odsnap sql "SELECT market_type_value, count(*) FROM rcn_transactions GROUP BY ALL"',
  positionals: { name: 'QUERY', description: 'the SELECT statement' },
  options: {
    data: { type: 'string', value: 'DIR', description: 'data directory (or ODSNAP_DATA)', default: defaultDataDir() },
    snapshot: { type: 'string', value: 'ID', description: 'snapshot to query (default: the current one)' },
    format: { type: 'string', value: 'FORMAT', description: `table | ${formats.join(' | ')}`, default: 'table' },
    out: { type: 'string', value: 'FILE', description: 'write the result to a file instead of standard output' },
  },
  schema: z.object({
    QUERY: z.string({ error: 'is required: the SELECT statement to run' }).min(1),
    data: z.string().min(1),
    snapshot: z.string().min(1).optional(),
    format: z.enum(['table', ...formats], { error: `must be one of table, ${formats.join(', ')}` }),
    out: z.string().min(1).optional(),
  }),
  async run(options, output) {
    if ((options.format === 'parquet' || options.format === 'arrow') && !options.out && process.stdout.isTTY) {
      throw new UsageError(`--format ${options.format} is binary; add --out FILE`);
    }
    const snapshot = await openSnapshot(options.data, options.snapshot);
    const { SqlRefused, SqlSandbox } = await import('../server/sql/sandbox.ts');
    const sandbox = await SqlSandbox.open(snapshot, datasets);
    try {
      const result = await sandbox.run(options.QUERY);
      const content = options.format === 'table' ? Buffer.from(table(result)) : await encode(result, options.format);
      if (options.out) await writeFile(options.out, content);
      else output.out(options.format === 'table' || options.format === 'json' || options.format === 'csv' ? content.toString() : (process.stdout.write(content), ''));
      return 0;
    } catch (error) {
      if (error instanceof SqlRefused) {
        output.err(`odsnap sql: refused: ${error.message}\n`);
        return 1;
      }
      throw error;
    } finally {
      sandbox.close();
    }
  },
});
