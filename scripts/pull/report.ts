import type { Output } from '../../core/progress.ts';
import { errInJson, formatCount } from '../../core/progress.ts';

/** A data set's progress in a pull, as its crawl counts it (see crawler.ts). */
export interface Tally {
  requests: number;
  retries: number;
  /** Records received (validated when the snapshot is built). */
  records: number;
  quarantined: number;
  /** Units of work known so far and finished, fetched or found in the journal. */
  planned: number;
  done: number;
  resumed: number;
}

/**
 * What a pull tells the person running it. On a terminal: a bar per data set (units of work,
 * requests, records, rate, ETA) redrawn in place, with notable events printed above. Elsewhere:
 * one JSON object per line, an event or a periodic progress record, for logs and machines. A
 * command that settled its format (`Output.format`) gets that: readable lines off a terminal
 * are the same events and records, written as a terminal's events are, with no bars.
 */
export class PullReport {
  readonly tallies = new Map<string, Tally>();
  private readonly started = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private drawnLines = 0;

  constructor(private readonly output: Output) {}

  tally(dataset: string): Tally {
    let tally = this.tallies.get(dataset);
    if (!tally) {
      tally = { requests: 0, retries: 0, records: 0, quarantined: 0, planned: 0, done: 0, resumed: 0 };
      this.tallies.set(dataset, tally);
    }
    return tally;
  }

  /** Starts periodic progress: redrawn bars on a terminal, a line per data set every `everyMs` elsewhere. */
  start(everyMs = 10_000): void {
    this.timer = setInterval(() => (this.drawing ? this.draw() : this.progressLines()), this.drawing ? 250 : everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    if (this.drawing) this.draw();
    else this.progressLines();
    this.drawnLines = 0;
  }

  /** A notable event: a line of its own (JSON off a terminal). */
  event(event: string, fields: Record<string, unknown> = {}): void {
    if (errInJson(this.output)) {
      this.output.err(JSON.stringify({ time: new Date().toISOString(), event, ...fields }) + '\n');
      return;
    }
    this.clear();
    const detail = Object.entries(fields)
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(' ');
    this.output.err(`[${this.elapsed()}] ${event} ${detail}\n`);
    if (this.drawing) this.draw();
  }

  /** Whether the bars are drawn: on a terminal, unless told to write JSON there. */
  private get drawing(): boolean {
    return this.output.interactive && !errInJson(this.output);
  }

  /** Each data set's progress as an event of its own, where no bars are drawn. */
  private progressLines(): void {
    for (const [dataset, t] of this.tallies) this.event('progress', { dataset, ...t, ...this.rates(t) });
  }

  private rates(t: Tally) {
    const seconds = (Date.now() - this.started) / 1000;
    const fresh = t.done - t.resumed;
    const remaining = Math.max(0, t.planned - t.done);
    return {
      requestsPerSecond: Math.round(t.requests / Math.max(seconds, 0.001)),
      etaSeconds: fresh > 0 && remaining > 0 ? Math.round((seconds / fresh) * remaining) : remaining === 0 ? 0 : null,
    };
  }

  private draw(): void {
    this.clear();
    const width = Math.max(...[...this.tallies.keys()].map((name) => name.length));
    const lines = [...this.tallies].map(([dataset, t]) => {
      const share = t.planned ? Math.min(1, t.done / t.planned) : 0;
      const filled = Math.round(share * 20);
      const { requestsPerSecond, etaSeconds } = this.rates(t);
      const eta = etaSeconds === null ? '' : etaSeconds === 0 ? 'done' : `ETA ${duration(etaSeconds)}`;
      return (
        `${dataset.padEnd(width)} ▕${'█'.repeat(filled)}${'░'.repeat(20 - filled)}▏ ${String(Math.round(share * 100)).padStart(3)}%  ` +
        `${formatCount(t.requests)} req  ${formatCount(t.records)} records${t.quarantined ? `  ${t.quarantined} quarantined` : ''}  ${requestsPerSecond} req/s  ${eta}`
      );
    });
    this.output.err(lines.map((line) => `\x1b[2K${line}\n`).join(''));
    this.drawnLines = lines.length;
  }

  private clear(): void {
    if (this.drawnLines) this.output.err(`\x1b[${this.drawnLines}A\x1b[0J`);
    this.drawnLines = 0;
  }

  private elapsed(): string {
    return duration((Date.now() - this.started) / 1000);
  }
}

export const duration = (seconds: number): string =>
  seconds < 60
    ? `${seconds.toFixed(seconds < 10 ? 1 : 0)}s`
    : seconds < 3600
      ? `${Math.floor(seconds / 60)}m${String(Math.round(seconds % 60)).padStart(2, '0')}s`
      : `${Math.floor(seconds / 3600)}h${String(Math.round((seconds % 3600) / 60)).padStart(2, '0')}m`;
