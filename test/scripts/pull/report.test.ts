import { describe, expect, it } from 'vitest';
import { PullReport } from '../../../scripts/pull/report.ts';
import { capture } from '../../fixtures/output.ts';

/** A report's events and progress, as a pull writes them while it runs. */
function reported(output: ReturnType<typeof capture>): string[] {
  const report = new PullReport(output);
  report.tally('rcn').requests = 3;
  report.start();
  report.event('full pull', { reason: 'the data directory holds no snapshot yet' });
  report.stop();
  return output.err().split('\n').slice(0, -1);
}

describe('a pull report', () => {
  it('writes its events and progress as JSON lines off a terminal', () => {
    const lines = reported(capture());
    expect(lines.map((line) => JSON.parse(line).event)).toEqual(['full pull', 'progress']);
  });

  it('writes JSON lines on a terminal too when the format is JSON, with no bars drawn', () => {
    const lines = reported({ ...capture(), interactive: true, format: 'json' });
    expect(lines.map((line) => JSON.parse(line).event)).toEqual(['full pull', 'progress']);
  });

  it('writes readable lines off a terminal when the format is pretty, with no bars drawn', () => {
    const lines = reported({ ...capture(), format: 'pretty' });
    expect(lines).toEqual([
      expect.stringMatching(/^\[\S+\] full pull reason=the data directory/),
      expect.stringMatching(/^\[\S+\] progress dataset=rcn requests=3 /),
    ]);
    expect(lines.join('\n')).not.toContain('\x1b');
  });
});
