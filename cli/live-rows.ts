import { dataLayout, currentSnapshotId } from '../core/snapshot/layout.ts';
import { LiveArchive } from '../scripts/mirror/live-archive.ts';
import { NewestCaptures } from '../scripts/mirror/newest-capture.ts';
import { latestInSnapshot, type LatestLiveRows } from '../server/latest-live-rows.ts';

/**
 * The latest live rows as the server's feeds read them when a mirror keeps the data directory
 * current: the live archive's newest capture when it is newer than the snapshot's, so the GBFS feed
 * follows each capture rather than each pull; for a past snapshot (`snapshot=`), that snapshot's own.
 */
export function archivedOrSnapshotted(dataDir: string): LatestLiveRows {
  const newest = new NewestCaptures(new LiveArchive(dataDir));
  return async (served, dataset, resource) => {
    const inSnapshot = await latestInSnapshot(served, dataset, resource);
    if (served.id !== (await currentSnapshotId(dataLayout(dataDir).root))) return inSnapshot;
    const captured = await newest.of(dataset, resource, served.snapshot.manifest);
    const time = dataset.tables[dataset.resources[resource]!.table]!.timeColumn;
    if (!captured || !time) return inSnapshot;
    const snapshotted = Math.max(-Infinity, ...inSnapshot.map((row) => Number(row[time])));
    return captured.at > snapshotted ? captured.rows : inSnapshot;
  };
}
