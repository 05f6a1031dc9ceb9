import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Clock } from '../../core/clock.ts';
import { send } from '../http/respond.ts';
import type { Answer } from '../http/route.ts';
import type { MirrorRecord } from '../mirror-record.ts';
import type { SnapshotHost } from '../snapshot-host.ts';
import { MirrorMetrics } from './mirror-metrics.ts';

/** Request durations, in seconds: most answers take a millisecond or less, SQL up to its 10 s, a slow request up to its 30 s. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * A server's metrics, in the Prometheus text format at `/metrics`: the process's own (prom-client's
 * defaults), requests by route and status and their durations, the snapshot served, and the
 * mirror's record. Each server has a registry of its own, so that several in one process (the
 * tests) count apart.
 *
 * Requests are counted as they end (`observe`, from app.ts); the rest is read when scraped: the
 * snapshot's age and the mirror's record (read again only when its file changed, see
 * MirrorRecord), so nothing runs between scrapes.
 */
export class ServerMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'route' | 'status'>;
  private readonly durations: Histogram<'route'>;
  private readonly snapshotAge: Gauge;
  private readonly snapshotInfo: Gauge<'snapshot'>;
  private readonly mirrorMetrics: MirrorMetrics;

  constructor(
    private readonly host: SnapshotHost,
    private readonly mirror: MirrorRecord,
    private readonly clock: Clock,
  ) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
      name: 'odsnap_http_requests_total',
      help: 'Requests answered, by route (a line of the routing table, or a v1 endpoint by its path template) and status',
      labelNames: ['route', 'status'],
      registers,
    });
    this.durations = new Histogram({
      name: 'odsnap_http_request_duration_seconds',
      help: 'Time from a request arriving to its answer sent, by route',
      labelNames: ['route'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.snapshotAge = new Gauge({ name: 'odsnap_snapshot_age_seconds', help: 'Time since the snapshot served was made', registers });
    this.snapshotInfo = new Gauge({ name: 'odsnap_snapshot_info', help: 'The snapshot served, by its id (always 1)', labelNames: ['snapshot'], registers });
    this.mirrorMetrics = new MirrorMetrics(registers);
  }

  /**
   * The counter and histogram of each route and status seen, found once: asked by labels at each
   * request, prom-client makes a key of them every time.
   */
  private readonly counted = new Map<string, { readonly requests: { inc(): void }; readonly durations: { observe(seconds: number): void } }>();

  /** Counts a request answered: `route` must be one of few values (see Route.label), never the URL. */
  readonly observe = (route: string, status: number, seconds: number): void => {
    const key = `${status} ${route}`;
    let metrics = this.counted.get(key);
    if (!metrics) this.counted.set(key, (metrics = { requests: this.requests.labels(route, String(status)), durations: this.durations.labels(route) }));
    metrics.requests.inc();
    metrics.durations.observe(seconds);
  };

  /** `GET /metrics`: every metric as it is now. */
  readonly answer: Answer = async ({ request, response }) => {
    await this.refresh();
    return send(request, response, {
      status: 200,
      type: this.registry.contentType,
      content: Buffer.from(await this.registry.metrics()),
      cacheControl: 'no-store',
    });
  };

  /** Sets what is read at a scrape: the snapshot served and the mirror's record. */
  private async refresh(): Promise<void> {
    const now = this.clock.now();
    const { snapshot } = this.host.current;
    this.snapshotAge.set((now - Date.parse(snapshot.manifest.createdAt)) / 1000);
    this.snapshotInfo.reset();
    this.snapshotInfo.set({ snapshot: snapshot.id }, 1);
    this.mirrorMetrics.set(await this.mirror.read(), now);
  }
}
