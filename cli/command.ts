import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import type { Output } from '../core/progress.ts';
import { defaultDataDir } from '../core/snapshot/layout.ts';
import { OSM_TILES, tilesProblem } from '../core/base-map.ts';

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  /** Shown in --help, e.g. DIR. */
  readonly value?: string;
  readonly description: string;
  readonly default?: string;
  /**
   * A directory the command reads (it must exist) or may create (it may be missing, but not be a
   * file): checked once the options are otherwise valid.
   */
  readonly directory?: 'read' | 'create';
  /** A file the command writes: its directory must exist, and it must not be one. */
  readonly file?: 'create';
  /** An environment variable the option sets for the run (and for processes it starts), e.g. ODSNAP_CACHE_DIR. */
  readonly environment?: string;
}

/** `--cache-dir`, for commands that derive files from a snapshot (see snapshotCacheDir). */
export const cacheDirOption: OptionSpec = {
  type: 'string',
  value: 'DIR',
  description: "where files derived from a snapshot go (the server's database, spill): DIR/cache of the data directory by default, or the system's temporary directory when the data directory is read-only (or ODSNAP_CACHE_DIR)",
  directory: 'create',
  environment: 'ODSNAP_CACHE_DIR',
};

/** `--data DIR`, a data directory the command reads (`read`) or may make (`create`); `also` says more of it. */
export const dataDirOption = (directory: 'read' | 'create', also = ''): OptionSpec => ({
  type: 'string',
  value: 'DIR',
  description: `data directory${also ? ` ${also}` : ''} (or ODSNAP_DATA)`,
  default: defaultDataDir(),
  directory,
});

/** `--format table|json`, for commands that print a report. */
export const reportFormatOption: OptionSpec = { type: 'string', value: 'FORMAT', description: 'table | json', default: 'table' };
export const reportFormatSchema = z.enum(['table', 'json'], { error: 'must be table or json' });

/** `--cache-dir` in a command's schema (its checks are the option's, see parseCommandLine). */
export const cacheDirSchema = z.string().min(1).optional();

/** `--tiles`: the base map of the site's maps, for `build` and `start` (ODSNAP_TILES checked as the option is). */
export const tilesOption: OptionSpec = {
  type: 'string',
  value: 'URL|none',
  description:
    'raster tiles under the site\'s maps, a URL template with {z}/{x}/{y} fetched by the reader\'s browser; none keeps the maps drawn offline as SVG, with nothing loaded from elsewhere (or ODSNAP_TILES)',
  default: process.env.ODSNAP_TILES || OSM_TILES,
};
export const tilesSchema = z.string().superRefine((value, context) => {
  const problem = tilesProblem(value);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

/**
 * A command: its options as data (for parsing and --help) and a schema that turns the parsed
 * text into typed options, so `run` never sees an unchecked value.
 */
export interface Command<O = unknown> {
  readonly name: string;
  readonly summary: string;
  readonly description?: string;
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Positional arguments, e.g. a SQL query. */
  readonly positionals?: { readonly name: string; readonly description: string };
  readonly schema: z.ZodType<O>;
  run(options: O, output: Output): Promise<number>;
}

export const defineCommand = <O>(command: Command<O>): Command => command as Command;

export function helpOf(command: Command): string {
  const rows = [
    ...Object.entries(command.options).map(([name, o]) => [
      `--${name}${o.value ? ` ${o.value}` : ''}`,
      `${o.description}${o.default !== undefined ? ` (default: ${o.default})` : ''}`,
    ]),
    ['-h, --help', 'show this help'],
  ];
  const width = Math.max(...rows.map(([left]) => left!.length));
  const positional = command.positionals ? ` ${command.positionals.name}` : '';
  return [
    `Usage: odsnap ${command.name}${Object.keys(command.options).length ? ' [options]' : ''}${positional}`,
    '',
    command.summary,
    ...(command.description ? ['', command.description] : []),
    ...(command.positionals ? ['', `${command.positionals.name}: ${command.positionals.description}`] : []),
    '',
    'Options:',
    ...rows.map(([left, right]) => `  ${left!.padEnd(width)}  ${right}`),
    '',
  ].join('\n');
}

/** Thrown for bad arguments: reported on one line, exit code 2. */
export class UsageError extends Error {}

export function parseCommandLine(command: Command, argv: readonly string[]): { help: true } | { help: false; options: unknown } {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        ...Object.fromEntries(Object.entries(command.options).map(([name, o]) => [name, { type: o.type }])),
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: Boolean(command.positionals),
      strict: true,
    });
  } catch (error) {
    const message = (error as Error).message;
    // node's "argument is ambiguous" (a value that starts with a dash) ends with how to write it: keep that part.
    const dashed = /use '(--[^']+=-XYZ)'/.exec(message)?.[1];
    const first = message.replace(/\. To specify a positional.*$/s, '').split('\n')[0]!.replace(/\.$/, '');
    throw new UsageError(dashed ? `${first}: a value that starts with a dash is written ${dashed.replace('XYZ', '…')}` : first);
  }
  if (parsed.values.help) return { help: true };
  const values: Record<string, unknown> = { ...parsed.values };
  for (const [name, o] of Object.entries(command.options)) if (values[name] === undefined && o.default !== undefined) values[name] = o.default;
  if (command.positionals) values[command.positionals.name] = parsed.positionals.join(' ') || undefined;
  const result = command.schema.safeParse(values);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const name = String(issue.path[0] ?? '');
    const label = command.positionals?.name === name ? name : `--${name}`;
    throw new UsageError(`${label} ${issue.message}`);
  }
  for (const [name, o] of Object.entries(command.options)) {
    const problem = typeof values[name] === 'string' ? pathProblem(values[name] as string, o) : undefined;
    if (problem) throw new UsageError(`--${name} ${problem}`);
  }
  for (const [name, o] of Object.entries(command.options)) if (o.environment && typeof values[name] === 'string') process.env[o.environment] = values[name] as string;
  return { help: false, options: result.data };
}

/** What is wrong with a path for what its option says of it (a directory read or made, a file written), if anything. */
function pathProblem(path: string, option: OptionSpec): string | undefined {
  if (!option.file && !option.directory) return undefined;
  const stats = statSync(path, { throwIfNoEntry: false });
  if (option.file === 'create') {
    const parent = dirname(resolve(path));
    if (!statSync(parent, { throwIfNoEntry: false })?.isDirectory()) return `${path}: ${parent} is no directory to write in`;
    return stats?.isDirectory() ? `${path} is a directory, not a file` : undefined;
  }
  if (!stats && option.directory === 'read') return `${path}: no such directory; make a snapshot there with "odsnap sample --out ${path}" or "odsnap pull --data ${path}"`;
  if (stats && !stats.isDirectory()) return `${path} is a file, not a directory`;
  return undefined;
}
