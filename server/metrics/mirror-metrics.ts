import { Counter, Gauge, type Registry } from 'prom-client';
import type { MirrorStatus } from '../../core/mirror-status.ts';

/**
 * The mirror's record (core/mirror-status.ts) as metrics, set again at each scrape from the
 * record as it is then. Its counters are the record's own, which the mirror keeps across its
 * restarts, so they only grow, as Prometheus expects of a counter. Every metric here is labelled:
 * with no record they have no series at all, rather than zeros that would read as a mirror
 * that never pulled.
 */
export class MirrorMetrics {
  private readonly updated: Gauge<'upstream'>;
  private readonly pulls: Counter<'outcome'>;
  private readonly lastSuccess: Gauge<'dataset'>;
  private readonly lastDuration: Gauge<'dataset'>;
  private readonly captures: Counter<'feed' | 'dataset'>;
  private readonly captureFailures: Counter<'feed' | 'dataset'>;
  private readonly captureLag: Gauge<'feed' | 'dataset'>;
  private readonly gaps: Gauge<'feed' | 'dataset'>;

  constructor(registers: Registry[]) {
    const feed = ['feed', 'dataset'] as const;
    this.updated = new Gauge({
      name: 'odsnap_mirror_updated_timestamp_seconds',
      help: 'When the mirror last wrote its status record (Unix time)',
      labelNames: ['upstream'],
      registers,
    });
    this.pulls = new Counter({
      name: 'odsnap_mirror_pulls_total',
      help: 'Scheduled pulls, by outcome (succeeded, failed)',
      labelNames: ['outcome'],
      registers,
    });
    this.lastSuccess = new Gauge({
      name: 'odsnap_mirror_last_pull_success_timestamp_seconds',
      help: "When a data set's last successful pull ended (Unix time)",
      labelNames: ['dataset'],
      registers,
    });
    this.lastDuration = new Gauge({
      name: 'odsnap_mirror_last_pull_duration_seconds',
      help: "How long a data set's last successful pull took",
      labelNames: ['dataset'],
      registers,
    });
    this.captures = new Counter({ name: 'odsnap_mirror_live_captures_total', help: 'Captures of a live feed', labelNames: feed, registers });
    this.captureFailures = new Counter({
      name: 'odsnap_mirror_live_capture_failures_total',
      help: 'Captures of a live feed that failed',
      labelNames: feed,
      registers,
    });
    this.captureLag = new Gauge({
      name: 'odsnap_mirror_live_capture_lag_seconds',
      help: "Time since a live feed's last capture",
      labelNames: feed,
      registers,
    });
    this.gaps = new Gauge({
      name: 'odsnap_mirror_live_recent_gaps_seconds',
      help: 'Time without captures of a live feed in its recent gaps (those the status record keeps)',
      labelNames: feed,
      registers,
    });
  }

  /** Sets every metric from the record (none when there is none), lags counted to `now` (epoch ms). */
  set(record: MirrorStatus | undefined, now: number): void {
    for (const metric of [this.updated, this.pulls, this.lastSuccess, this.lastDuration, this.captures, this.captureFailures, this.captureLag, this.gaps])
      metric.reset();
    if (!record) return;
    this.updated.set({ upstream: record.upstream }, Date.parse(record.updatedAt) / 1000);
    this.pulls.inc({ outcome: 'succeeded' }, record.pulls.succeeded);
    this.pulls.inc({ outcome: 'failed' }, record.pulls.failed);
    for (const [dataset, { lastSuccess }] of Object.entries(record.datasets)) {
      if (!lastSuccess) continue;
      this.lastSuccess.set({ dataset }, Date.parse(lastSuccess.at) / 1000);
      this.lastDuration.set({ dataset }, lastSuccess.seconds);
    }
    for (const [path, live] of Object.entries(record.live)) {
      const labels = { feed: path, dataset: live.dataset };
      this.captures.inc(labels, live.captures);
      this.captureFailures.inc(labels, live.failures);
      if (live.lastCapture) this.captureLag.set(labels, (now - Date.parse(live.lastCapture)) / 1000);
      this.gaps.set(
        labels,
        live.gaps.reduce((seconds, gap) => seconds + gap.minutes * 60, 0),
      );
    }
  }
}
