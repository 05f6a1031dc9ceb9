import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../cli/command.ts';
import { logWriter, readableLine } from '../../cli/log-lines.ts';
import { serveCommand } from '../../cli/serve-command.ts';
import { capture } from '../fixtures/output.ts';

const request = { time: '2026-11-02T12:01:05.000Z', method: 'GET', path: '/api/public/rcn/transactions', query: 'limit=1', status: 200, ms: 1.3, bytes: 2150 };
const TIME = /^\d\d:\d\d:\d\d /;

describe('the log lines', () => {
  it('write a request readably: time of day (UTC), status, method, path and query, time taken, size', () => {
    expect(readableLine(request)).toBe('12:01:05 200 GET /api/public/rcn/transactions?limit=1 1.3 ms 2.1 KiB');
  });

  it('write an event by its name and fields, and a failure with its stack below', () => {
    expect(readableLine({ event: 'snapshot', snapshot: 'S2', previous: 'S1' }).replace(TIME, '')).toBe('snapshot  snapshot=S2 previous=S1');
    const failure = readableLine({ level: 'error', error: 'Error: boom\n    at answer (app.ts:1:1)', path: '/api/sql?q=x' });
    expect(failure.replace(TIME, '')).toBe('error  path=/api/sql?q=x\nError: boom\n    at answer (app.ts:1:1)');
  });

  it('are readable on a terminal and JSON elsewhere, unless --log-format says which', () => {
    const written = (terminal: boolean, format?: 'json' | 'pretty') => {
      const output = { ...capture(), terminal };
      logWriter(output, format)(request);
      return output.out();
    };
    expect(JSON.parse(written(false))).toEqual(request);
    expect(written(true)).toMatch(/ 200 GET \/api\/public\/rcn\/transactions\?limit=1 1\.3 ms 2\.1 KiB\n$/);
    expect(JSON.parse(written(true, 'json'))).toEqual(request);
    expect(written(false, 'pretty')).toMatch(/ 200 GET /);
  });

  it('take --log-format json or pretty, and refuse anything else', () => {
    const parsed = parseCommandLine(serveCommand, ['--log-format', 'pretty', '--data', '.']);
    expect(!parsed.help && parsed.options['log-format']).toBe('pretty');
    expect(() => parseCommandLine(serveCommand, ['--log-format', 'xml', '--data', '.'])).toThrow('--log-format must be json or pretty');
  });
});
