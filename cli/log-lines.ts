import { z } from 'zod';
import { formatBytes, type LogFormat, type Output } from '../core/progress.ts';
import type { ValueOption } from './command.ts';

/**
 * How the server's log lines are written: JSON lines for machines (a log shipper, `jq`), or one
 * readable line each for a person at a terminal. Either way the server hands over the same
 * records (see `log` in server/app.ts and snapshot-host.ts); only the writing differs.
 */
export const logFormatOption = {
  type: 'string',
  value: 'FORMAT',
  description: 'json | pretty: log lines as JSON, or readable ones (default: pretty when stdout is a terminal, else json)',
  check: z.enum(['json', 'pretty'], { error: 'must be json or pretty' }).optional(),
} as const satisfies ValueOption;

/** Writes log records to `output`'s out, in `format`, else the command's, else by whether out is a terminal. */
export function logWriter(output: Output, format: LogFormat | undefined): (line: Record<string, unknown>) => void {
  const pretty = (format ?? output.format ?? (output.terminal ? 'pretty' : 'json')) === 'pretty';
  return pretty ? (line) => output.out(`${readableLine(line)}\n`) : (line) => output.out(`${JSON.stringify(line)}\n`);
}

/**
 * A record as a person reads it: the time of day (UTC, as the JSON lines and the mirror's own
 * lines have it), then, for a request, its status, method, path, time and size (`12:01:05 200 GET
 * /api/public/rcn/transactions?limit=1 1.3 ms 2.1 KiB`), for an event its name and fields
 * (`12:01:05 snapshot  snapshot=… previous=…`, as `odsnap mirror` writes its events), for a
 * failure `error` and where, with its stack on the lines below.
 */
export function readableLine(line: Record<string, unknown>, at = new Date()): string {
  const { time, ...fields } = line;
  const clock = (typeof time === 'string' ? time : at.toISOString()).slice(11, 19);
  if (typeof fields.method === 'string' && typeof fields.status === 'number') {
    const { method, path, query, status, ms, bytes } = fields;
    return `${clock} ${status} ${method} ${path}${query ? `?${query}` : ''} ${ms} ms ${formatBytes(Number(bytes ?? 0))}`;
  }
  if (fields.level === 'error') {
    const { level, error, ...rest } = fields;
    return `${clock} error  ${pairs(rest)}\n${error}`.replace(/ +\n/, '\n');
  }
  const { event, ...rest } = fields;
  return `${clock} ${event ?? ''}  ${pairs(rest)}`.trimEnd();
}

const pairs = (fields: Record<string, unknown>) =>
  Object.entries(fields)
    .map(([name, value]) => `${name}=${typeof value === 'string' && !/\s/.test(value) ? value : JSON.stringify(value)}`)
    .join(' ');
