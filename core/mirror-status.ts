import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';

/**
 * How a long-running mirror is doing, as it writes it to `<data>/mirror/status.json` after each
 * step: the one record the status resource, the metrics and the site read, whichever process
 * serves them. Counters are kept from the mirror's first run, across restarts, so that metrics
 * made of them only grow.
 */

const instant = z.iso.datetime({ offset: true });

const failure = z.object({ at: instant, error: z.string() });

/** A span of minutes with no capture of a live feed, and why (the upstream down, a 429, an answer v1 does not allow, the mirror stopped). */
export const liveGap = z.object({ from: instant, to: instant, minutes: z.number().int().positive(), reason: z.string() });

export const datasetStatus = z.object({
  lastSuccess: z.object({ at: instant, snapshot: z.string(), seconds: z.number().nonnegative() }).nullable(),
  lastFailure: failure.nullable(),
  nextRun: instant.nullable(),
});

export const liveFeedStatus = z.object({
  dataset: z.string(),
  lastCapture: instant.nullable(),
  nextCapture: instant.nullable(),
  captures: z.number().int().nonnegative(),
  failures: z.number().int().nonnegative(),
  lastFailure: failure.nullable(),
  /** The most recent gaps, newest last (older ones are in the live archive's own record). */
  gaps: z.array(liveGap),
});

export const mirrorStatus = z.object({
  upstream: z.string(),
  /** When this run of the mirror started, and when it last wrote this record. */
  startedAt: instant,
  updatedAt: instant,
  pulls: z.object({ succeeded: z.number().int().nonnegative(), failed: z.number().int().nonnegative() }),
  datasets: z.record(z.string(), datasetStatus),
  /** By the live feed's path, e.g. /api/public/citybike/live. */
  live: z.record(z.string(), liveFeedStatus),
});

export type MirrorStatus = z.infer<typeof mirrorStatus>;
export type DatasetStatus = z.infer<typeof datasetStatus>;
export type LiveFeedStatus = z.infer<typeof liveFeedStatus>;
export type LiveGap = z.infer<typeof liveGap>;

export const mirrorStatusFile = (dataDir: string) => join(resolve(dataDir), 'mirror', 'status.json');

/**
 * The mirror's record in a data directory: undefined when no mirror ever ran there; a record that
 * cannot be read (written by another version) reads as none rather than failing a reader.
 */
export async function readMirrorStatus(dataDir: string): Promise<MirrorStatus | undefined> {
  const text = await readFile(mirrorStatusFile(dataDir), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const parsed = mirrorStatus.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

let writes = 0;

/**
 * Writes the record whole under a temporary name of its own (two writes at once do not share one),
 * then renames it: a reader sees the old record or the new, never half.
 */
export async function writeMirrorStatus(dataDir: string, status: MirrorStatus): Promise<void> {
  const file = mirrorStatusFile(dataDir);
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}-${++writes}.tmp`;
  await writeFile(temporary, `${JSON.stringify(mirrorStatus.parse(status), null, 2)}\n`);
  await rename(temporary, file);
}
