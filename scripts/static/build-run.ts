/**
 * What a build has under way besides its main thread's work, and how it ends: each step that opens
 * something (a connection, the tree, the site's process) says here how to close it, and each that
 * starts work in the background, how to stop it if the build fails. At the end, whether the build
 * succeeded or failed, what was opened is closed, the last opened first.
 */
export interface BuildRun {
  /** Aborted when the build fails: work read ahead stops rather than being waited for. */
  readonly failing: AbortSignal;
  /** Adds what to do when the build ends (done last first). */
  atEnd(close: () => unknown): void;
  /** Adds what to stop at once when the build fails (a query on a connection of its own). */
  onFailure(stop: () => void): void;
}

export function startRun(): BuildRun & { fail(): void; end(): Promise<void> } {
  const failing = new AbortController();
  const closing: (() => unknown)[] = [];
  const stopping: (() => void)[] = [];
  return {
    failing: failing.signal,
    atEnd: (close) => closing.push(close),
    onFailure: (stop) => stopping.push(stop),
    fail() {
      failing.abort();
      for (const stop of stopping) stop();
    },
    async end() {
      for (const close of closing.reverse()) await close();
    },
  };
}
