import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineCommand, helpOf, parseCommandLine, type Command, type Option } from '../../cli/command.ts';
import type { buildCommand } from '../../cli/build-command.ts';
import { commands } from '../../cli/main.ts';
import type { pruneCommand } from '../../cli/prune-command.ts';
import { serveCommand } from '../../cli/serve-command.ts';
import type { sqlCommand } from '../../cli/sql-command.ts';
import { tempDir } from '../fixtures/tiny.ts';

/**
 * Each option is declared once, and --help, parsing and the options `run` gets all come from that
 * declaration: an option one of them did not know would be missing from help, refused by parsing,
 * or dropped on the way to `run`.
 */

let dir: string;
beforeAll(async () => {
  dir = await tempDir('options');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Texts tried, in order, for an option with a value: the first its own check takes and that is not its default. */
const candidates = ['7', '30m', 'json', 'tiny', 'none', 'rcn', '2025-01-01', '3MiB', 'last=7', 'http://127.0.0.1:9', 'feeds@example.org'];

/** A text an option's check takes, other than its default: a directory or a file for one that names a path. */
function textFor(name: string, option: { readonly check?: z.ZodType; readonly default?: string; readonly directory?: string; readonly file?: string }): string {
  if (option.directory) return dir;
  if (option.file) return join(dir, 'result');
  const text = candidates.find((candidate) => candidate !== option.default && (option.check?.safeParse(candidate).success ?? true));
  if (text === undefined) throw new Error(`no candidate is a text ${name} takes: add one to the list`);
  return text;
}

/** Each option of a command given a value, then the positional: its arguments, and what `run` should get of it. */
function everyOption(command: Command) {
  const given = Object.entries(command.options).map(([name, option]) => {
    if (option.type === 'boolean') return { name, option, args: [`--${name}`], text: undefined, expected: true };
    const text = textFor(`--${name}`, option);
    return { name, option, args: [`--${name}=${text}`], text, expected: option.check ? option.check.parse(text) : text };
  });
  const positional = command.positionals && { name: command.positionals.name, text: textFor(command.positionals.name, command.positionals) };
  return { given, positional: positional && { ...positional, expected: command.positionals!.check.parse(positional.text) } };
}

/** The options a command line makes, as `parse` hands them to run; the environment as it was before. */
function parse(command: Command, argv: readonly string[]): { options: Record<string, unknown>; environment: NodeJS.ProcessEnv } {
  const saved = { ...process.env };
  try {
    const parsed = command.parse(argv);
    if (parsed.help) throw new Error('no help was asked for');
    return { options: parsed.options as Record<string, unknown>, environment: { ...process.env } };
  } finally {
    process.env = saved;
  }
}

describe.each(commands.map((c) => [c.name, c] as const))('odsnap %s', (_name, command) => {
  it('shows every option in --help, once, with its value, description and default', () => {
    const help = helpOf(command);
    const rows = help
      .slice(help.indexOf('\nOptions:\n'))
      .split('\n')
      .filter((line) => line.startsWith('  -'));
    expect(rows.map((row) => row.trim().split(' ')[0])).toEqual([...Object.keys(command.options).map((name) => `--${name}`), '-h,']);
    for (const [name, option] of Object.entries(command.options)) {
      const row = rows.find((line) => line.startsWith(`  --${name} `))!;
      const left = `  --${name}${option.type === 'string' && option.value ? ` ${option.value}` : ''}`;
      expect(row.startsWith(left) && row.slice(left.length).trimStart().startsWith(option.description)).toBe(true);
      if (option.type === 'string' && option.default !== undefined) expect(row).toContain(`(default: ${option.default})`);
    }
    if (command.positionals) expect(help).toContain(`${command.positionals.name}: ${command.positionals.description}`);
  });

  it('parses every option and hands each to run as its check makes it, setting the environment variables it names', () => {
    const { given, positional } = everyOption(command);
    const { options, environment } = parse(command, [...given.flatMap((g) => g.args), ...(positional ? [positional.text] : [])]);
    const expected = Object.fromEntries([...given, ...(positional ? [positional] : [])].map((g) => [g.name, g.expected]));
    expect(options).toEqual(expected);
    expect(Object.keys(options).sort()).toEqual(Object.keys(expected).sort());
    for (const { option, text } of given) if (option.type === 'string' && option.environment) expect(environment[option.environment]).toBe(text);
  });

  it('gives each option left out its default, made by its check', () => {
    const { given, positional } = everyOption(command);
    // Left out: flags, and options with a default that names no path (a default directory need not exist here).
    const leftOut = given.filter(({ option }) => option.type === 'boolean' || (option.default !== undefined && !option.directory && !option.file));
    const { options } = parse(command, [...given.filter((g) => !leftOut.includes(g)).flatMap((g) => g.args), ...(positional ? [positional.text] : [])]);
    for (const { name, option } of leftOut) {
      const expected = option.type === 'boolean' ? undefined : option.check ? option.check.parse(option.default) : option.default;
      expect({ [name]: options[name] }).toEqual({ [name]: expected });
    }
  });
});

describe('the options run gets', () => {
  it('are typed by the declarations', () => {
    // Checked by tsc (npx tsc --noEmit): at run time expectTypeOf checks nothing.
    const serve = parseCommandLine(serveCommand, ['--port', '8080', '--quiet', '--data', dir]);
    if (serve.help) throw new Error('no help was asked for');
    expect(serve.options.port).toBe(8080);
    expectTypeOf(serve.options.port).toEqualTypeOf<number>();
    expectTypeOf(serve.options.quiet).toEqualTypeOf<boolean | undefined>();
    expectTypeOf(serve.options.host).toEqualTypeOf<string>();
    expectTypeOf(serve.options['public-url']).toEqualTypeOf<string | undefined>();
    // @ts-expect-error: no option of serve is called so.
    void serve.options.nope;
    expectTypeOf(serve.options).toEqualTypeOf<Parameters<typeof serveCommand.run>[0]>();
    expectTypeOf<Parameters<typeof pruneCommand.run>[0]['keep-last']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<Parameters<typeof sqlCommand.run>[0]['QUERY']>().toEqualTypeOf<string>();
    expectTypeOf<Parameters<typeof sqlCommand.run>[0]['format']>().toEqualTypeOf<'table' | 'json' | 'csv' | 'parquet' | 'arrow'>();
    expectTypeOf<Parameters<typeof buildCommand.run>[0]['contact']>().toEqualTypeOf<string | undefined>();
  });

  it('cannot be declared at odds with their checks', () => {
    const declare = (options: Record<string, Option>) => defineCommand({ name: 'x', summary: '', options, run: async () => 0 });
    // A flag takes no value, default or check; an option with a value is checked as text.
    // @ts-expect-error: a flag has no value.
    declare({ flag: { type: 'boolean', description: '', value: 'X' } });
    // @ts-expect-error: a flag's value is true or undefined, not a number.
    declare({ flag: { type: 'boolean', description: '', check: z.number() } });
    // @ts-expect-error: an option with a value is text, not a boolean.
    declare({ text: { type: 'string', description: '', check: z.boolean() } });
    defineCommand({
      name: 'x',
      summary: '',
      options: { n: { type: 'string', description: '', default: '1', check: z.string().transform(Number) } },
      run: async (options) => {
        expectTypeOf(options.n).toEqualTypeOf<number>();
        // @ts-expect-error: declared, nothing else is.
        void options.m;
        return 0;
      },
    });
  });
});
