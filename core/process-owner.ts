import { hostname } from 'node:os';

/**
 * What a process makes for itself beside others' (a DuckDB spill directory, a serving database
 * being built) carries `<host>-<pid>` in its name, so that what a process left behind when it
 * died can be told from what a running one is using, and removed. The host keeps a data directory
 * shared between machines safe from that sweep: another machine's process ids mean nothing here.
 */
export const ownerTag = (): string => `${hostname()}-${process.pid}`;

/** Whether the owner `<host>-<pid>` named was a process of this host that no longer runs. */
export function ownerGone(host: string, pid: number): boolean {
  if (host !== hostname()) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code !== 'EPERM';
  }
}
