/** Where a command writes: the process streams in use, buffers in tests. */
export interface Output {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** Whether `err` is a terminal, so progress can redraw one line. */
  readonly interactive: boolean;
  /** Whether `out` is a terminal, so that log lines are written for a person rather than a machine. */
  readonly terminal?: boolean;
}

export const processOutput: Output = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  interactive: Boolean(process.stderr.isTTY),
  terminal: Boolean(process.stdout.isTTY),
};

/**
 * Progress of long work: on a terminal one line redrawn in place, elsewhere only the lines that
 * mark a finished step, so logs stay readable.
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
    if (!this.output.interactive) return;
    const now = Date.now();
    if (now - this.lastDraw < 100) return;
    this.lastDraw = now;
    this.output.err(`\r\x1b[2K${this.elapsed()} ${typeof text === 'function' ? text() : text}`);
    this.drawn = true;
  }

  /** A finished step: always printed, on its own line. */
  step(text: string): void {
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
export const formatBytes = (n: number) =>
  n < 1024
    ? `${n} B`
    : n < 1024 ** 2
      ? `${(n / 1024).toFixed(1)} KiB`
      : n < 1024 ** 3
        ? `${(n / 1024 ** 2).toFixed(1)} MiB`
        : `${(n / 1024 ** 3).toFixed(2)} GiB`;
