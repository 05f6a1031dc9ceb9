import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import type { Output } from '../core/progress.ts';
import { defaultDataDir } from '../core/snapshot/layout.ts';
import { OSM_TILES, tilesProblem } from '../core/base-map.ts';

/**
 * An option with a value, `--name VALUE`: everything odsnap knows of it, in one object. --help
 * shows `value`, `description` and `default`; parsing reads it as text (the default when not
 * given), `check` turns the text into what `run` gets, and that is the option's type.
 */
export interface ValueOption {
  readonly type: 'string';
  /** Shown in --help, e.g. DIR. */
  readonly value?: string;
  readonly description: string;
  /** As it would be written on the command line: it is checked as given text is, and shown in --help. */
  readonly default?: string;
  /**
   * Checks the text (undefined when not given and there is no default) and makes it the value; a
   * refusal says `--name` and its message, e.g. "--port must be a port number". Without a check:
   * non-empty text, optional unless there is a default.
   */
  readonly check?: z.ZodType<unknown, string | undefined>;
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

/** A flag, `--name`: true when given, undefined when not. */
export interface FlagOption {
  readonly type: 'boolean';
  readonly description: string;
}

export type Option = ValueOption | FlagOption;
export type Options = Readonly<Record<string, Option>>;

/** The words after the options, joined by spaces (undefined when none), checked as an option's text is. */
export interface Positional {
  /** Shown in --help, and the key of the value in the options `run` gets, e.g. QUERY. */
  readonly name: string;
  readonly description: string;
  readonly check: z.ZodType<unknown, string | undefined>;
}

/** What `run` gets of an option, by its declaration. */
export type ValueOf<D extends Option> = D extends { readonly type: 'boolean' }
  ? boolean | undefined
  : D extends { readonly check: infer C extends z.ZodType }
    ? z.output<C>
    : D extends { readonly default: string }
      ? string
      : string | undefined;

type PositionalValue<P> = P extends { readonly name: infer N extends string; readonly check: infer C extends z.ZodType }
  ? { readonly [K in N]: z.output<C> }
  : unknown;

/** A command's options as its declarations make them: each option's value, and the positional's. */
export type Parsed<O extends Options, P extends Positional | undefined> = { readonly [K in keyof O]: ValueOf<O[K]> } & PositionalValue<P>;

/** What a command line is checked against: a command's declarations. */
export interface CommandLine<O extends Options, P extends Positional | undefined, R> {
  readonly name: string;
  readonly options: O;
  /** Positional arguments, e.g. a SQL query. */
  readonly positionals?: P;
  /**
   * Checks of options together, once each is valid (throwing a UsageError that names an option),
   * returning what `run` gets, e.g. sql's --format from the ending of --out.
   */
  readonly together?: (options: Parsed<O, P>) => R;
}

/** A command as written: its declarations, and what it does with the options they make. */
export interface CommandSpec<O extends Options, P extends Positional | undefined, R> extends CommandLine<O, P, R> {
  readonly summary: string;
  readonly description?: string;
  readonly run: (options: R, output: Output) => Promise<number>;
}

/**
 * A command as main.ts lists it, whatever its options' types: what --help shows, and `parse`,
 * which checks a command line and hands back the run of the command with its options, so that
 * their type stays with the command and no list needs a cast.
 */
export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly description?: string;
  readonly options: Options;
  readonly positionals?: Positional;
  readonly parse: (
    argv: readonly string[],
  ) => { readonly help: true } | { readonly help: false; readonly options: unknown; readonly run: (output: Output) => Promise<number> };
}

/** A command: its options, declared once, give its --help, its parsing and the type of what `run` gets. */
export function defineCommand<const O extends Options, const P extends Positional | undefined = undefined, R = Parsed<O, P>>(
  spec: CommandSpec<O, P, R>,
): CommandSpec<O, P, R> & Command {
  return {
    ...spec,
    parse: (argv) => {
      const parsed = parseCommandLine(spec, argv);
      return parsed.help ? parsed : { ...parsed, run: (output) => spec.run(parsed.options, output) };
    },
  };
}

/** `--cache-dir`, for commands that derive files from a snapshot (see snapshotCacheDir). */
export const cacheDirOption = {
  type: 'string',
  value: 'DIR',
  description:
    "where files derived from a snapshot go (the server's database, spill): DIR/cache of the data directory by default, or the system's temporary directory when the data directory is read-only (or ODSNAP_CACHE_DIR)",
  directory: 'create',
  environment: 'ODSNAP_CACHE_DIR',
} as const satisfies ValueOption;

/** `--data DIR`, a data directory the command reads (`read`) or may make (`create`); `also` says more of it. */
export const dataDirOption = (directory: 'read' | 'create', also = '') =>
  ({
    type: 'string',
    value: 'DIR',
    description: `data directory${also ? ` ${also}` : ''} (or ODSNAP_DATA)`,
    default: defaultDataDir(),
    directory,
  }) as const satisfies ValueOption;

/** `--format table|json`, for commands that print a report. */
export const reportFormatOption = {
  type: 'string',
  value: 'FORMAT',
  description: 'table | json',
  default: 'table',
  check: z.enum(['table', 'json'], { error: 'must be table or json' }),
} as const satisfies ValueOption;

/** `--tiles`: the base map of the site's maps, for `build` and `start` (ODSNAP_TILES checked as the option is). */
export const tilesOption = {
  type: 'string',
  value: 'URL|none',
  description:
    "raster tiles under the site's maps, a URL template with {z}/{x}/{y} fetched by the reader's browser; none keeps the maps drawn offline as SVG, with nothing loaded from elsewhere (or ODSNAP_TILES)",
  default: process.env.ODSNAP_TILES || OSM_TILES,
  check: z.string().superRefine((value, context) => {
    const problem = tilesProblem(value);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  }),
} as const satisfies ValueOption;

/**
 * Where and by whom a static tree is published, for `build` and for the trees `start` and `mirror`
 * rebuild: the links' base (GBFS and DCAT-AP want absolute addresses), the publisher and a contact.
 */
export const publishingOptions = {
  'base-url': {
    type: 'string',
    value: 'URL',
    description: "prefix of links in the tree, e.g. https://cdn.example.org/odsnap (default: links from the host's root)",
    check: z
      .string()
      .refine((value) => /^https?:\/\/[^/]+/.test(value) || value.startsWith('/'), { error: 'must be an http(s) URL or a path starting with /' })
      .optional(),
  },
  publisher: {
    type: 'string',
    value: 'NAME',
    description: 'who publishes the data, for the DCAT-AP record (default: the upstream pulled from)',
    check: z.string().trim().min(1).optional(),
  },
  contact: {
    type: 'string',
    value: 'EMAIL|URL',
    description: "whom to ask about the data, for the DCAT-AP record and the GBFS feed (default: the upstream's address)",
    check: z
      .string()
      .transform((value) => (/^[^@\s/:]+@[^@\s/]+$/.test(value) ? `mailto:${value}` : value))
      .refine((value) => /^(mailto:[^@\s]+@[^@\s]+|https?:\/\/[^/\s]+\S*)$/.test(value), { error: 'must be an e-mail address or an http(s) URL' })
      .optional(),
  },
} as const;

/** The publishing options as a build takes them. */
export const publishingOf = (options: { readonly 'base-url'?: string; readonly publisher?: string; readonly contact?: string }) => ({
  base: options['base-url'],
  publisher: { name: options.publisher, contact: options.contact },
});

export function helpOf(command: Command): string {
  const rows = [
    ...Object.entries(command.options).map(([name, o]) =>
      o.type === 'boolean'
        ? [`--${name}`, o.description]
        : [`--${name}${o.value ? ` ${o.value}` : ''}`, `${o.description}${o.default !== undefined ? ` (default: ${o.default})` : ''}`],
    ),
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

/** What an option's text is checked and made a value with (see ValueOption's `check`). */
const checkOf = (option: Option): z.ZodType<unknown, string | boolean | undefined> =>
  option.type === 'boolean' ? z.boolean().optional() : (option.check ?? (option.default === undefined ? z.string().min(1).optional() : z.string().min(1)));

/** A command line's options, checked and typed by the command's declarations; a UsageError says what is wrong. */
export function parseCommandLine<O extends Options, P extends Positional | undefined, R>(
  command: CommandLine<O, P, R>,
  argv: readonly string[],
): { readonly help: true } | { readonly help: false; readonly options: R } {
  const known: Record<string, { type: Option['type']; short?: string }> = {
    ...Object.fromEntries(Object.entries(command.options).map(([name, o]) => [name, { type: o.type }])),
    help: { type: 'boolean', short: 'h' },
  };
  // biome-ignore lint/suspicious/noImplicitAnyLet: parseArgs's type follows from its options; the assignment below gives it
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: known, allowPositionals: Boolean(command.positionals), strict: true });
  } catch (error) {
    const message = (error as Error).message;
    // node's "argument is ambiguous" (a value that starts with a dash) ends with how to write it: keep that part.
    const dashed = /use '(--[^']+=-XYZ)'/.exec(message)?.[1];
    const first = message
      .replace(/\. To specify a positional.*$/s, '')
      .split('\n')[0]!
      .replace(/\.$/, '');
    throw new UsageError(dashed ? `${first}: a value that starts with a dash is written ${dashed.replace('XYZ', '…')}` : first);
  }
  if (parsed.values.help) return { help: true };
  const { values: given, positionals } = parsed;
  // Each option's text as given, or its default: what is checked, and what path checks and environment variables get.
  const texts = Object.entries(command.options).map(([name, o]) => [name, o, given[name] ?? (o.type === 'string' ? o.default : undefined)] as const);
  type Check = readonly [label: string, name: string, text: string | boolean | undefined, check: z.ZodType];
  const checks: Check[] = texts.map(([name, o, text]) => [`--${name}`, name, text, checkOf(o)]);
  if (command.positionals) {
    const { name, check } = command.positionals;
    const text = positionals.join(' ') || undefined;
    // In the order of the usage line, but one left out is said first: a forgotten query before a typo in an option.
    if (text === undefined) checks.unshift([name, name, text, check]);
    else checks.push([name, name, text, check]);
  }
  const values: Record<string, unknown> = {};
  for (const [label, name, text, check] of checks) {
    const result = check.safeParse(text);
    if (!result.success) throw new UsageError(`${label} ${result.error.issues[0]!.message}`);
    values[name] = result.data;
  }
  // Typed by the declarations: each key holds what its own check made, and checkOf makes what ValueOf says.
  const typed = values as Parsed<O, P>;
  // Without `together`, R is Parsed<O, P> (defineCommand's default).
  const options = command.together ? command.together(typed) : (typed as R);
  for (const [name, o, text] of texts) {
    const problem = o.type === 'string' && typeof text === 'string' ? pathProblem(text, o) : undefined;
    if (problem) throw new UsageError(`--${name} ${problem}`);
  }
  for (const [, o, text] of texts) if (o.type === 'string' && o.environment && typeof text === 'string') process.env[o.environment] = text;
  return { help: false, options };
}

/** What is wrong with a path for what its option says of it (a directory read or made, a file written), if anything. */
function pathProblem(path: string, option: ValueOption): string | undefined {
  if (!option.file && !option.directory) return undefined;
  const stats = statSync(path, { throwIfNoEntry: false });
  if (option.file === 'create') {
    const parent = dirname(resolve(path));
    if (!statSync(parent, { throwIfNoEntry: false })?.isDirectory()) return `${path}: ${parent} is no directory to write in`;
    return stats?.isDirectory() ? `${path} is a directory, not a file` : undefined;
  }
  if (!stats && option.directory === 'read')
    return `${path}: no such directory; make a snapshot there with "odsnap sample --out ${path}" or "odsnap pull --data ${path}"`;
  if (stats && !stats.isDirectory()) return `${path} is a file, not a directory`;
  return undefined;
}
