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
  private constructor(
    private readonly dataDir: string,
    private readonly clock: Clock,
    private status: MirrorStatus,
  ) {}

  static async open(dataDir: string, upstream: string, datasets: readonly string[], feeds: readonly { path: string; dataset: string }[], clock: Clock) {
    const earlier = await readMirrorStatus(dataDir);
    const same = earlier?.upstream === upstream ? earlier : undefined;
    const now = iso(clock.now());
    return new StatusRecord(dataDir, clock, {
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
    });
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

  async save(): Promise<void> {
    this.status.updatedAt = iso(this.clock.now());
    await writeMirrorStatus(this.dataDir, this.status);
  }
}
