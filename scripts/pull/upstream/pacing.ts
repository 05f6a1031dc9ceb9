/**
 * How fast requests start: at most `concurrency` in flight, and at most `rate` started per second
 * across all of them (0 for no limit).
 */
export class Pacing {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private nextStart = 0;

  constructor(
    private readonly concurrency: number,
    private readonly rate: number,
  ) {}

  /** Waits for a free place among `concurrency`, then for the rate's next start time. */
  async slot(): Promise<void> {
    if (this.active >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    if (this.rate > 0) {
      const now = Date.now();
      const start = Math.max(now, this.nextStart);
      this.nextStart = start + 1000 / this.rate;
      if (start > now) await sleep(start - now);
    }
  }

  /** Gives the place back, to the longest waiting request if any. */
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
