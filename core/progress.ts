/** How a command's lines are written: readable, for a person, or JSON lines, for a machine. */
export type LogFormat = 'json' | 'pretty';

/** Where a command writes: the process streams in use, buffers in tests. */
export interface Output {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** Whether `err` is a terminal, so progress can redraw one line. */
  readonly interactive: boolean;
  /** Whether `out` is a terminal, so that log lines are written for a person rather than a machine. */
  readonly terminal?: boolean;
  /**
   * One format for every line a command writes, on both streams, where it settles one (`start`,
   * `--log-format`): so a log reader never meets readable lines among JSON ones. Absent, each
   * writer goes by whether its own stream is a terminal.
   */
  readonly format?: LogFormat;
}

export const processOutput: Output = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  interactive: Boolean(process.stderr.isTTY),
  terminal: Boolean(process.stdout.isTTY),
};

/** Whether the lines a command writes on err are JSON: as its format says, else when err is no terminal. */
export const errInJson = (output: Output): boolean => (output.format ? output.format === 'json' : !output.interactive);

/** A message as a JSON line (`{ time, msg }`, and any fields), as steps are written when the format is JSON. */
export const messageLine = (msg: string, fields: Record<string, unknown> = {}): string =>
  `${JSON.stringify({ time: new Date().toISOString(), msg, ...fields })}\n`;

/**
 * Progress of long work: on a terminal one line redrawn in place, elsewhere only the lines that
 * mark a finished step, so logs stay readable; a JSON line each when the format is JSON.
 */
export class Progress {
  private lastDraw = 0;
  private drawn = false;
  private readonly started = Date.now();

  constructor(private readonly output: Output) {}

  /**
   * A passing state, e.g. "citybike/rides 1,200,000 rows". Redrawn at most ten times a second;
   * a function is called only then (a build reports each of half a million files).
   */
  update(text: string | (() => string)): void {
    if (!this.output.interactive || this.output.format === 'json') return;
    const now = Date.now();
    if (now - this.lastDraw < 100) return;
    this.lastDraw = now;
    this.output.err(`\r\x1b[2K${this.elapsed()} ${typeof text === 'function' ? text() : text}`);
    this.drawn = true;
  }

  /** A finished step: always printed, on its own line. */
  step(text: string): void {
    if (this.output.format === 'json') {
      this.output.err(messageLine(text));
      return;
    }
    this.clear();
    this.output.err(`${this.elapsed()} ${text}\n`);
  }

  /** Takes the passing state off the terminal, before other output. */
  clear(): void {
    if (this.drawn) this.output.err('\r\x1b[2K');
    this.drawn = false;
  }

  private elapsed(): string {
    return `[${((Date.now() - this.started) / 1000).toFixed(1).padStart(5)}s]`;
  }
}

export const formatCount = (n: number) => n.toLocaleString('en');
/** A count and its noun, singular for one: `1 file`, `2,048 files`. */
export const counted = (n: number, noun: string) => `${formatCount(n)} ${noun}${n === 1 ? '' : 's'}`;
export const formatBytes = (n: number) =>
  n < 1024
    ? `${n} B`
    : n < 1024 ** 2
      ? `${(n / 1024).toFixed(1)} KiB`
      : n < 1024 ** 3
        ? `${(n / 1024 ** 2).toFixed(1)} MiB`
        : `${(n / 1024 ** 3).toFixed(2)} GiB`;
