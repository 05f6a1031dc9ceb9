import { watch, type FSWatcher } from 'chokidar';
import type { Dataset } from '../datasets/vocabulary/dataset.ts';
import { currentSnapshotId, dataLayout } from '../core/snapshot/layout.ts';
import { openSnapshot } from '../core/snapshot/read.ts';
import { ServedSnapshot, type ServedSnapshotOptions } from './served-snapshot.ts';

/**
 * The snapshot requests are answered from, swapped without a restart when the data directory's
 * `current` link moves: the new snapshot is opened in full before it takes over, requests already
 * running finish on the old one, which closes after the last of them.
 */
export class SnapshotHost {
  private watcher?: FSWatcher;
  private switching: Promise<void> = Promise.resolve();

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
    await this.watcher?.close();
    await this.switching;
    this.served.retire();
  }
}
