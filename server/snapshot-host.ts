import { watch, type FSWatcher } from 'chokidar';
import type { Dataset } from '../datasets/vocabulary/dataset.ts';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { invalidParameter, Problem } from '../core/problem.ts';
import { MANIFEST_FILE } from '../core/snapshot/manifest.ts';
import { currentSnapshotId, dataLayout, holdsSnapshot, isSnapshotId } from '../core/snapshot/layout.ts';
import { openSnapshot, type Snapshot } from '../core/snapshot/read.ts';
import { ServedSnapshot, type ServedSnapshotOptions } from './served-snapshot.ts';

/**
 * Past snapshots kept open at once, and how long one stays open unasked: each holds its in-memory copies
 * and DuckDB's cache, as much as the current snapshot does. Two, so that a client comparing two
 * past snapshots does not reopen one at every request.
 */
const PAST_OPEN = 2;
const PAST_IDLE_MS = 5 * 60_000;

/** A past snapshot opened on demand, and the requests that asked for it and have not yet leased it. */
interface PastEntry {
  readonly opened: Promise<ServedSnapshot>;
  claims: number;
  evicted: boolean;
  idle?: NodeJS.Timeout;
}

export class SnapshotHost {
  private watcher?: FSWatcher;
  private switching: Promise<void> = Promise.resolve();
  /** Past snapshots opened, least recently asked first. */
  private readonly past = new Map<string, PastEntry>();
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
    await this.assertHeld(id);
    if (this.closed) throw new Problem('service-unavailable', 'the server is stopping', {}, { 'retry-after': '5' });
    const entry = this.claimPast(id);
    let served: ServedSnapshot;
    try {
      served = await entry.opened;
    } catch (error) {
      this.options.log?.({ event: 'past-snapshot-failed', snapshot: id, error: (error as Error).message });
      throw new Problem(
        'not-found',
        `snapshot ${id} cannot be served: it was written by an odsnap whose tables differ, or it is damaged (see the server's log)`,
        { param: 'snapshot' },
      );
    } finally {
      entry.claims--;
    }
    // Leased before it may close: a past snapshot put aside meanwhile closes after this request.
    const release = served.lease();
    this.retireIfPutAside(entry);
    return { served, release };
  }

  /**
   * The snapshot `id` as read from disk, for what needs its manifest but not its data (the index):
   * opening a past snapshot to serve it takes its in-memory copies and perhaps a database build.
   */
  async snapshotOf(id: string | undefined): Promise<Snapshot> {
    if (id === undefined || id === this.served.id) return this.served.snapshot;
    await this.assertHeld(id);
    return openSnapshot(this.dataDir, id);
  }

  /** A 400 for what cannot be an id, a 404 naming the nearest held for an id not held. */
  private async assertHeld(id: string): Promise<void> {
    if (!isSnapshotId(id)) throw invalidParameter('snapshot', 'snapshot names a snapshot by its id, e.g. snapshot=20251001T220000Z-a7b138a7');
    if (!this.holds(id)) throw await this.noSnapshot(id);
  }

  /** A snapshot directory that holds a manifest (a pull writes it last). */
  private holds(id: string): boolean {
    return holdsSnapshot(this.dataDir, id) && existsSync(join(dataLayout(this.dataDir).snapshot(id), MANIFEST_FILE));
  }

  /** The entry of a past snapshot, opened if it was not, claimed by one request; the least recently asked beyond PAST_OPEN are put aside. */
  private claimPast(id: string): PastEntry {
    let entry = this.past.get(id);
    if (entry) this.past.delete(id);
    else {
      const opened = openSnapshot(this.dataDir, id).then((snapshot) => ServedSnapshot.open(snapshot, this.datasets, this.options));
      entry = { opened, claims: 0, evicted: false };
      const failed = entry;
      opened.catch(() => this.past.get(id) === failed && this.past.delete(id));
      this.options.log?.({ event: 'past-snapshot-opened', snapshot: id });
    }
    entry.claims++;
    clearTimeout(entry.idle);
    entry.idle = setTimeout(() => this.putAside(id), PAST_IDLE_MS);
    entry.idle.unref();
    this.past.set(id, entry);
    for (const older of [...this.past.keys()].slice(0, Math.max(0, this.past.size - PAST_OPEN))) this.putAside(older);
    return entry;
  }

  /** No longer handed to requests: closes once the requests that claimed or leased it are done. */
  private putAside(id: string): void {
    const entry = this.past.get(id);
    if (!entry) return;
    this.past.delete(id);
    clearTimeout(entry.idle);
    entry.evicted = true;
    this.retireIfPutAside(entry);
  }

  private retireIfPutAside(entry: PastEntry): void {
    if (entry.evicted && entry.claims === 0)
      void entry.opened.then(
        (served) => served.retire(),
        () => undefined,
      );
  }

  /** The problem for a snapshot the data directory does not hold, naming the nearest it does. */
  private async noSnapshot(id: string): Promise<Problem> {
    const held = (await readdir(dataLayout(this.dataDir).snapshots).catch(() => [] as string[])).filter((candidate) => this.holds(candidate)).sort();
    const at = held.findIndex((candidate) => candidate > id);
    const nearest = at < 0 ? held.slice(-2) : held.slice(Math.max(0, at - 1), at + 1);
    return new Problem(
      'not-found',
      `no snapshot ${JSON.stringify(id)} here (never pulled, or pruned)${nearest.length ? `; the nearest held: ${nearest.join(', ')}` : ''}`,
      { param: 'snapshot', nearest },
    );
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
        // What its kinds keep in memory is made once the snapshot before is closed: the server never holds both.
        const next = await ServedSnapshot.open(await openSnapshot(this.dataDir, id), this.datasets, { ...this.options, inMemory: 'later' });
        const previous = this.served;
        this.served = next;
        previous.retire();
        this.options.log?.({ event: 'snapshot', snapshot: id, previous: previous.id });
        void previous.closing
          .then(() => next.keepInMemory())
          .then(
            (copied) => copied && this.options.log?.({ event: 'pages-in-memory', snapshot: id }),
            (error) => this.options.log?.({ event: 'pages-in-memory-failed', snapshot: id, error: (error as Error).message }),
          );
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
    for (const id of [...this.past.keys()]) this.putAside(id);
  }
}
