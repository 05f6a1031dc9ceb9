import { readFileSync } from 'node:fs';
import { helpOf, UsageError, type Command } from './command.ts';
import { processOutput, type Output } from '../core/progress.ts';
import { buildCommand } from './build-command.ts';
import { diffCommand } from './diff-command.ts';
import { mirrorCommand } from './mirror-command.ts';
import { pruneCommand } from './prune-command.ts';
import { pullCommand } from './pull-command.ts';
import { sampleCommand } from './sample-command.ts';
import { serveCommand } from './serve-command.ts';
import { snapshotsCommand } from './snapshots-command.ts';
import { sqlCommand } from './sql-command.ts';
import { startCommand } from './start-command.ts';
import { verifyCommand } from './verify-command.ts';

/** Every odsnap command, in the order --help lists them. */
export const commands: readonly Command[] = [
  startCommand,
  sampleCommand,
  pullCommand,
  mirrorCommand,
  buildCommand,
  serveCommand,
  sqlCommand,
  snapshotsCommand,
  diffCommand,
  pruneCommand,
  verifyCommand,
];

function overview(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'Usage: odsnap <command> [options]',
    '',
    'odsnap keeps open data published through the v1 interface as versioned Parquet snapshots.',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run "odsnap <command> --help" for a command\'s options, "odsnap --version" for the version.',
    '',
  ].join('\n');
}

/** odsnap's version, from its package.json. */
export const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Runs one command line; resolves to the exit code (2 for bad arguments). */
export async function main(argv: readonly string[], output: Output = processOutput): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    output.out(overview());
    return 0;
  }
  // No command is a command line to fix: the list of commands, where errors go, and exit code 2.
  if (name === undefined) {
    output.err(overview());
    return 2;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    output.out(`odsnap ${version}\n`);
    return 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    output.err(`odsnap: unknown command "${name}"; run "odsnap --help" for the list\n`);
    return 2;
  }
  try {
    const parsed = command.parse(rest);
    if (parsed.help) {
      output.out(helpOf(command));
      return 0;
    }
    return await parsed.run(output);
  } catch (error) {
    if (error instanceof UsageError) {
      output.err(`odsnap ${command.name}: ${error.message}; run "odsnap ${command.name} --help"\n`);
      return 2;
    }
    output.err(`odsnap ${command.name}: ${(error as Error).message}\n`);
    return 1;
  }
}
