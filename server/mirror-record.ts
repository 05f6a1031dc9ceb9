import { stat } from 'node:fs/promises';
import { type MirrorStatus, mirrorStatusFile, readMirrorStatus } from '../core/mirror-status.ts';

/**
 * The mirror's record of a data directory (core/mirror-status.ts) as the status resource and the
 * metrics read it, at each request: read again only when the file changed (the mirror replaces it
 * whole, by a rename, so a new file is a new inode and time), else a stat's cost.
 */
export class MirrorRecord {
  private readonly file: string;
  private seen = '';
  private record: MirrorStatus | undefined;

  constructor(private readonly dataDir: string) {
    this.file = mirrorStatusFile(dataDir);
  }

  /** The record as it is now; undefined when no mirror ever ran here (or its record cannot be read). */
  async read(): Promise<MirrorStatus | undefined> {
    const stats = await stat(this.file).catch(() => undefined);
    const version = stats ? `${stats.ino} ${stats.mtimeMs} ${stats.size}` : '';
    if (version !== this.seen) {
      this.record = stats ? await readMirrorStatus(this.dataDir) : undefined;
      this.seen = version;
    }
    return this.record;
  }
}
