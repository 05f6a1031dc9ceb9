import { watch, type FSWatcher } from 'chokidar';
import type { Dataset } from '../datasets/vocabulary/dataset.ts';
import { readdir } from 'node:fs/promises';
import { Problem } from '../core/problem.ts';
import { currentSnapshotId, dataLayout, holdsSnapshot } from '../core/snapshot/layout.ts';
import { openSnapshot } from '../core/snapshot/read.ts';
import { ServedSnapshot, type ServedSnapshotOptions } from './served-snapshot.ts';

/** Past snapshots kept open at once, and how long one stays open unasked: each holds its page copies and DuckDB's cache (at city scale 100–200 MB). */
const PAST_OPEN = 1;
const PAST_IDLE_MS = 5 * 60_000;

/**
 * The snapshot requests are answered from, swapped without a restart when the data directory's
 * `current` link moves: the new snapshot is opened in full before it takes over, requests already
 * running finish on the old one, which closes after the last of them. A request may also name any
 * snapshot the data directory still holds (`?snapshot=<id>`): such past snapshots are opened on
 * first use, and closed when unasked for a while or when another past one is wanted.
 */
export class SnapshotHost {
  private watcher?: FSWatcher;
  private switching: Promise<void> = Promise.resolve();
  /** Past snapshots opened, least recently asked first, each with the timer that closes it. */
  private readonly past = new Map<string, { opened: Promise<ServedSnapshot>; idle?: NodeJS.Timeout }>();
  private closed = false;

  private constructor(
    private readonly dataDir: string,
    private readonly datasets: readonly Dataset[],
    private readonly options: ServedSnapshotOptions,
    private served: ServedSnapshot,
  ) {}

  static async open(dataDir: string, datasets: readonly Dataset[], options: ServedSnapshotOptions = {}): Promise<SnapshotHost> {
    const served = await ServedSnapshot.open(await openSnapshot(dataDir), datasets, options);
    return new SnapshotHost(dataDir, datasets, options, served);
  }

  get current(): ServedSnapshot {
    return this.served;
  }

  /** The snapshot for one request, kept open until `release`. */
  lease(): { served: ServedSnapshot; release: () => void } {
    const served = this.served;
    return { served, release: served.lease() };
  }

  /**
   * The snapshot `id` for one request (the current one when `id` is undefined or its id), kept open
   * until `release`; a 404 problem naming the nearest ids the data directory holds when it holds
   * no such snapshot (never had it, or it was pruned).
   */
  async leaseOf(id: string | undefined): Promise<{ served: ServedSnapshot; release: () => void }> {
    if (id === undefined || id === this.served.id) return this.lease();
    if (!holdsSnapshot(this.dataDir, id)) throw await this.noSnapshot(id);
    for (;;) {
      const served = await this.openPast(id);
      // Closed while this request waited for it (another past snapshot was wanted): open it again.
      if (!served.isRetired) return { served, release: served.lease() };
    }
  }

  private openPast(id: string): Promise<ServedSnapshot> {
    if (this.closed) return Promise.reject(new Problem('service-unavailable', 'the server is stopping', {}, { 'retry-after': '5' }));
    let entry = this.past.get(id);
    if (entry) this.past.delete(id);
    else {
      const opened = openSnapshot(this.dataDir, id).then((snapshot) => ServedSnapshot.open(snapshot, this.datasets, this.options));
      entry = { opened };
      opened.catch(() => this.past.get(id)?.opened === opened && this.past.delete(id));
      this.options.log?.({ event: 'past-snapshot-opened', snapshot: id });
    }
    clearTimeout(entry.idle);
    entry.idle = setTimeout(() => this.closePast(id), PAST_IDLE_MS);
    entry.idle.unref();
    this.past.set(id, entry);
    for (const older of [...this.past.keys()].slice(0, Math.max(0, this.past.size - PAST_OPEN))) this.closePast(older);
    return entry.opened.catch((error: Error) => {
      throw new Problem('service-unavailable', `snapshot ${id} could not be opened: ${error.message}`, { param: 'snapshot' }, { 'retry-after': '5' });
    });
  }

  private closePast(id: string): void {
    const entry = this.past.get(id);
    if (!entry) return;
    this.past.delete(id);
    clearTimeout(entry.idle);
    void entry.opened.then((served) => served.retire(), () => undefined);
  }

  /** The problem for a snapshot the data directory does not hold, naming the nearest it does. */
  private async noSnapshot(id: string): Promise<Problem> {
    const held = (await readdir(dataLayout(this.dataDir).snapshots).catch(() => [] as string[])).sort();
    const at = held.findIndex((candidate) => candidate > id);
    const nearest = (at < 0 ? held.slice(-2) : held.slice(Math.max(0, at - 1), at + 1)).filter((candidate) => holdsSnapshot(this.dataDir, candidate));
    return new Problem('not-found', `no snapshot ${JSON.stringify(id)} here (never pulled, or pruned)${nearest.length ? `; the nearest held: ${nearest.join(', ')}` : ''}`, { param: 'snapshot', nearest });
  }

  /** Follows the `current` link from now on. */
  watch(): void {
    const layout = dataLayout(this.dataDir);
    this.watcher = watch(layout.root, { depth: 0, followSymlinks: false, ignoreInitial: true, ignored: (path) => path.includes('.staging') });
    this.watcher.on('all', (_event, path) => {
      if (path === layout.current) void this.refresh();
    });
  }

  /** Takes over the current snapshot if it changed; serialised, so two swaps never overlap. */
  refresh(): Promise<void> {
    this.switching = this.switching.then(async () => {
      const id = await currentSnapshotId(this.dataDir);
      if (!id || id === this.served.id) return;
      try {
        const next = await ServedSnapshot.open(await openSnapshot(this.dataDir, id), this.datasets, this.options);
        const previous = this.served;
        this.served = next;
        previous.retire();
        this.options.log?.({ event: 'snapshot', snapshot: id, previous: previous.id });
      } catch (error) {
        this.options.log?.({ event: 'snapshot-failed', snapshot: id, error: (error as Error).message });
      }
    });
    return this.switching;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.watcher?.close();
    await this.switching;
    this.served.retire();
    for (const id of [...this.past.keys()]) this.closePast(id);
  }
}
