import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
import { datasets } from '../datasets/index.ts';
import { formats, type Format } from '../server/sql/formats.ts';
import type { SqlLimits } from '../server/sql/limits.ts';
import type { QueryProgress, SqlResult, SqlSandbox as Sandbox } from '../server/sql/sandbox.ts';
import { cacheDirOption, dataDirOption, defineCommand, UsageError } from './command.ts';
import { ownSpillDir, type SpillDir } from '../core/db/spill.ts';
import { formatBytes, formatCount, processOutput, Progress, type Output } from '../core/progress.ts';
import { textTable } from '../core/text-table.ts';
import { openSnapshot } from '../core/snapshot/read.ts';
import { markReading } from '../core/snapshot/readers.ts';

/** A result as an aligned text table, for reading in a terminal. */
function table(result: SqlResult): string {
  const cell = (value: unknown) => {
    const text = value === null ? 'NULL' : typeof value === 'object' ? JSON.stringify(value) : String(value);
    return text.length > 48 ? `${text.slice(0, 47)}…` : text;
  };
  const rows = result.rows.map((row) => row.map(cell));
  return [
    textTable(
      // Numbers right-aligned, so that their digits line up by place.
      result.columns.map((c) => ({ title: c.name, right: /^(U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|DOUBLE|FLOAT|REAL|DECIMAL)\b/.test(c.type) })),
      rows,
    ),
    `(${result.rows.length} row${result.rows.length === 1 ? '' : 's'})`,
    '',
  ].join('\n');
}

type OutputFormat = 'table' | Format;

/** The format a file name says, by its ending. */
const fileEndings: readonly (readonly [string, Format])[] = [
  ['.parquet', 'parquet'],
  ['.csv', 'csv'],
  ['.csv.gz', 'csv'],
  ['.json', 'json'],
  ['.arrow', 'arrow'],
];
const formatOfFile = (path: string): Format | undefined => fileEndings.find(([ending]) => path.toLowerCase().endsWith(ending))?.[1];

/**
 * DuckDB of the command: the machine's cores, and 512 MB. A plain export streams well within it
 * (a whole table of the city sample, to Parquet or gzipped CSV; more memory only lets DuckDB
 * read further ahead of a slow gzip writer); a large
 * sort or join spills under the system's temporary directory rather than taking DuckDB's default
 * of 80% of the machine's memory.
 */
const duckdbConfig = { memory_limit: '512MB', threads: String(availableParallelism()) };

/** Where results go when not to a file: the process's standard output, or (in tests) the Output's text. */
function outputStream(output: Output): Writable {
  if (output === processOutput) return process.stdout;
  const decoder = new StringDecoder('utf8');
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      output.out(typeof chunk === 'string' ? chunk : decoder.write(chunk));
      done();
    },
  });
}

/** Text, bytes or pieces of either into `to`, at its pace; standard output stays open. */
const send = (content: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>, to: Writable, signal: AbortSignal) =>
  pipeline(Readable.from(content, { objectMode: false }), to, { end: to !== process.stdout, signal });

/** An export's progress line: DuckDB's estimate, and what it has written so far. */
const progressText = ({ percentage }: QueryProgress, file: string) =>
  `${percentage >= 0 ? `${percentage.toFixed(0)}%, ` : ''}${formatBytes(statSync(file, { throwIfNoEntry: false })?.size ?? 0)} written`;

export const sqlCommand = defineCommand({
  name: 'sql',
  summary: 'Run read-only SQL over a snapshot, with a view per table (rcn_transactions, bike_counter_readings, …).',
  description:
    'One SELECT (or SHOW, DESCRIBE, SUMMARIZE), reading only the snapshot, in the sandbox GET /api/sql uses, but by\n' +
    'default with no limit on time or rows (the endpoint stops at 10 s and 100,000 rows): --timeout and --max-rows\n' +
    'set them. Parquet and CSV are written by DuckDB itself, rows never held in memory, at any size (the endpoint\n' +
    "writes its CSV itself: CRLF lines, DuckDB's text of instants); JSON streams row batch by row batch (held whole\n" +
    'with --max-rows, until known to be within it); table and arrow are built in memory. --out writes a file aside\n' +
    'and renames it into place once whole, so a failed or interrupted export leaves FILE as it was; its ending\n' +
    '(.parquet, .csv, .csv.gz, .json, .arrow) gives the format unless --format does. CSV: a header line, instants in\n' +
    'ISO 8601 UTC, lists and structs as JSON; .csv.gz is gzip-compressed. On a terminal, an export shows its\n' +
    'progress; a file written ends with a summary line (rows, size, path) on stderr.\n' +
    'Examples:\n' +
    '  odsnap sql "SELECT market_type_value, count(*) FROM rcn_transactions GROUP BY ALL"\n' +
    '  odsnap sql --out rides.parquet "SELECT * FROM citybike_rides"\n' +
    '  odsnap sql --out readings.csv.gz "SELECT * FROM bike_counter_readings WHERE read_at >= \'2025-01-01\'"',
  positionals: {
    name: 'QUERY',
    description: 'the query: one SELECT (or SHOW, DESCRIBE, SUMMARIZE)',
    check: z.string({ error: 'is required: the query to run, e.g. "SELECT count(*) FROM rcn_transactions"' }).min(1),
  },
  options: {
    data: dataDirOption('read'),
    'cache-dir': cacheDirOption,
    snapshot: { type: 'string', value: 'ID', description: 'snapshot to query (default: the current one)' },
    format: {
      type: 'string',
      value: 'FORMAT',
      description: `table | ${formats.join(' | ')} (default: from --out's ending, else table)`,
      check: z.enum(['table', ...formats], { error: `must be one of table, ${formats.join(', ')}` }).optional(),
    },
    out: { type: 'string', value: 'FILE', description: 'write the result to a file instead of standard output', file: 'create' },
    'max-rows': {
      type: 'string',
      value: 'N',
      description: 'refuse a result of more than N rows, writing nothing (default: no limit)',
      check: z
        .string()
        .regex(/^\d+$/, { error: 'must be a whole number' })
        .transform(Number)
        .pipe(z.number().min(1, { error: 'must be at least 1' }))
        .optional(),
    },
    timeout: {
      type: 'string',
      value: 'SECONDS',
      description: 'stop the query after this long, writing nothing to --out (default: no limit)',
      check: z
        .string()
        .regex(/^\d+(\.\d+)?$/, { error: 'must be a number of seconds' })
        .transform((seconds) => Number(seconds) * 1000)
        .pipe(z.number().positive({ error: 'must be more than 0' }))
        .optional(),
    },
  },
  // --format and --out's ending agree, and give the format.
  together({ format, ...options }) {
    const named = options.out === undefined ? undefined : formatOfFile(options.out);
    if (format && named && format !== named)
      throw new UsageError(`--format ${format} disagrees with --out ${options.out}, a ${named} file; leave --format out or make them agree`);
    if (options.out && /\.gz$/i.test(options.out) && (format ?? named) !== 'csv')
      throw new UsageError(`--out ${options.out}: only csv is written gzip-compressed; add --format csv or leave .gz out`);
    return { ...options, format: (format ?? named ?? 'table') satisfies OutputFormat };
  },
  async run(options, output) {
    const { format, out } = options;
    if ((format === 'parquet' || format === 'arrow') && !out && process.stdout.isTTY) {
      throw new UsageError(`--format ${format} is binary; add --out FILE`);
    }
    const progress = new Progress(output);
    const limits: SqlLimits = { timeoutMs: options.timeout ?? Infinity, maxRows: options['max-rows'] ?? Infinity, maxBytes: Infinity };
    const target = out === undefined ? undefined : resolve(out);
    const snapshot = await openSnapshot(options.data, options.snapshot);
    const unmark = markReading(options.data, snapshot.id);
    const copied = format === 'csv' || format === 'parquet';
    // A file is written aside first, renamed into place when whole; what DuckDB writes for standard
    // output (CSV, Parquet) goes first to a directory of this process in the snapshot's cache, which
    // a later run removes should this one be killed.
    let scratch: SpillDir | undefined;
    if (copied && !target) scratch = await ownSpillDir(snapshot.cacheDir);
    const partial = target ? `${target}.${randomBytes(4).toString('hex')}.partial` : scratch ? `${scratch.path}/result.${format}` : undefined;

    const { SqlSandbox } = await import('../server/sql/sandbox.ts');
    const { SqlRefused } = await import('../server/sql/limits.ts');
    let sandbox: Sandbox | undefined;
    const interrupted = new AbortController();
    let exitCode = 130;
    const stop = (signal?: NodeJS.Signals) => {
      exitCode = signal === 'SIGTERM' ? 143 : 130;
      interrupted.abort();
      sandbox?.interrupt();
    };
    // A second Ctrl-C, with the handler gone, ends the process at once.
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    // Standard output closed early (| head): stop, quietly.
    let closed = false;
    const onStdoutError = (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') closed = true;
      stop();
    };
    process.stdout.on('error', onStdoutError);
    const left = out === undefined ? '' : ` (${out} left as it was)`;
    try {
      sandbox = await SqlSandbox.open(snapshot, datasets, { config: duckdbConfig, writable: copied ? [partial!] : [], progress: copied && output.interactive });
      // Interrupted while the sandbox opened: the query is not started.
      interrupted.signal.throwIfAborted();
      // Made when first written to: DuckDB writes the file of an export itself.
      const destination = () => (target ? createWriteStream(partial!, { flags: 'wx' }) : outputStream(output));
      let rows: number;
      if (copied) {
        const copyTarget = { path: partial!, format, gzip: format === 'csv' && /\.gz$/i.test(out ?? '') };
        ({ rows } = await sandbox.copy(options.QUERY, copyTarget, limits, (state) => progress.update(() => progressText(state, partial!))));
        if (!target) {
          progress.clear();
          await send(createReadStream(partial!), destination(), interrupted.signal);
        }
      } else if (format === 'json' && !Number.isFinite(limits.maxRows)) {
        const { toJsonChunks } = await import('../server/sql/formats.ts');
        rows = 0;
        await sandbox.stream(options.QUERY, limits, async (columns, batches) => {
          async function* counted() {
            for await (const batch of batches) {
              rows += batch.length;
              yield batch;
            }
          }
          await send(toJsonChunks(columns, counted()), destination(), interrupted.signal);
        });
      } else {
        // A table is for reading, arrow is built in memory, JSON within --max-rows is held until known to be within it.
        const { toArrow, toJson } = await import('../server/sql/formats.ts');
        const result = await sandbox.run(options.QUERY, limits);
        rows = result.rows.length;
        await send([format === 'table' ? table(result) : format === 'json' ? toJson(result) : await toArrow(result)], destination(), interrupted.signal);
      }
      // Stopped between DuckDB's statements, where there was nothing to interrupt.
      interrupted.signal.throwIfAborted();
      if (target) {
        await rename(partial!, target);
        const { size } = await stat(target);
        progress.step(`wrote ${formatCount(rows)} row${rows === 1 ? '' : 's'} (${formatBytes(size)}) to ${out}`);
      }
      return 0;
    } catch (error) {
      progress.clear();
      if (closed) return 0;
      if (interrupted.signal.aborted) {
        output.err(`odsnap sql: interrupted${left}\n`);
        return exitCode;
      }
      if (error instanceof SqlRefused) {
        output.err(`odsnap sql: refused: ${error.message}${left}\n`);
        return 1;
      }
      throw error;
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.stdout.off('error', onStdoutError);
      sandbox?.close();
      if (partial) await rm(partial, { force: true });
      scratch?.remove();
      unmark();
    }
  },
});
