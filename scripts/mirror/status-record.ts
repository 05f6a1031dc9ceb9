import { readMirrorStatus, writeMirrorStatus, type LiveGap, type MirrorStatus } from '../../core/mirror-status.ts';
import type { Clock } from '../../core/clock.ts';

/** Gaps kept in the status record per feed; the live archive's gaps file has them all. */
const RECENT_GAPS = 20;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The mirror's account of itself (core/mirror-status.ts), kept as its jobs run and written after
 * each change. Counters carry on from the record the last run left, so they only grow.
 */
export class StatusRecord {
  private saving: Promise<void> = Promise.resolve();

  private constructor(
    private readonly dataDir: string,
    private readonly clock: Clock,
    private status: MirrorStatus,
    private readonly log: (event: string, fields?: Record<string, unknown>) => void,
  ) {}

  static async open(
    dataDir: string,
    upstream: string,
    datasets: readonly string[],
    feeds: readonly { path: string; dataset: string }[],
    clock: Clock,
    log: (event: string, fields?: Record<string, unknown>) => void,
  ) {
    const earlier = await readMirrorStatus(dataDir);
    const same = earlier?.upstream === upstream ? earlier : undefined;
    const now = iso(clock.now());
    return new StatusRecord(
      dataDir,
      clock,
      {
        upstream,
        startedAt: now,
        updatedAt: now,
        pulls: same?.pulls ?? { succeeded: 0, failed: 0 },
        datasets: Object.fromEntries(datasets.map((name) => [name, { lastSuccess: null, lastFailure: null, ...same?.datasets[name], nextRun: null }])),
        live: Object.fromEntries(
          feeds.map(({ path, dataset }) => [
            path,
            { lastCapture: null, captures: 0, failures: 0, lastFailure: null, gaps: [], ...same?.live[path], dataset, nextCapture: null },
          ]),
        ),
      },
      log,
    );
  }

  get current(): MirrorStatus {
    return this.status;
  }

  pullDue(at: number): Promise<void> {
    for (const entry of Object.values(this.status.datasets)) entry.nextRun = iso(at);
    return this.save();
  }

  pulled(snapshot: string, seconds: number): Promise<void> {
    this.status.pulls.succeeded++;
    for (const entry of Object.values(this.status.datasets)) entry.lastSuccess = { at: iso(this.clock.now()), snapshot, seconds };
    return this.save();
  }

  pullFailed(error: string): Promise<void> {
    this.status.pulls.failed++;
    for (const entry of Object.values(this.status.datasets)) entry.lastFailure = { at: iso(this.clock.now()), error };
    return this.save();
  }

  captureDue(feed: string, at: number): void {
    this.status.live[feed]!.nextCapture = iso(at);
  }

  captured(feed: string, at: number): void {
    const entry = this.status.live[feed]!;
    entry.captures++;
    entry.lastCapture = iso(at);
  }

  captureFailed(feed: string, error: string): void {
    const entry = this.status.live[feed]!;
    entry.failures++;
    entry.lastFailure = { at: iso(this.clock.now()), error };
  }

  gap(feed: string, gap: LiveGap): void {
    const entry = this.status.live[feed]!;
    entry.gaps = [...entry.gaps, gap].slice(-RECENT_GAPS);
  }

  /**
   * Writes the record; saves follow one another, so the last written is the newest. A record that
   * cannot be written (a full disk) is said, and the mirror goes on: the next save tries again.
   */
  save(): Promise<void> {
    this.saving = this.saving.then(() => {
      this.status.updatedAt = iso(this.clock.now());
      return writeMirrorStatus(this.dataDir, this.status).catch((error: Error) => this.log('status not written', { error: error.message }));
    });
    return this.saving;
  }
}
