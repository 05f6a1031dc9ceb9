import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { lockDataDir } from './data-lock.ts';
import { linksUnder, listSnapshots, type Links } from './history.ts';
import { snapshotCacheDir } from './read.ts';
import { currentSnapshotId, dataLayout } from './layout.ts';
import { snapshotsRead } from './readers.ts';

/**
 * Which snapshots to keep, as backup tools say it (restic, borg): the newest `last`, and the
 * newest of each of the newest `daily` days, `weekly` ISO weeks and `monthly` months that have
 * one, by when each was created (UTC). A snapshot kept by one rule counts for the others too.
 */
export interface RetentionPolicy {
  readonly last?: number;
  readonly daily?: number;
  readonly weekly?: number;
  readonly monthly?: number;
}

/** A policy written `last=7,weekly=4,monthly=12` (`odsnap pull --prune`); undefined when it is not one. */
export function parsePolicy(text: string): RetentionPolicy | undefined {
  const policy: Record<string, number> = {};
  for (const part of text.split(',')) {
    const [, rule, n] = /^\s*(last|daily|weekly|monthly)=(\d+)\s*$/.exec(part) ?? [];
    if (!rule || rule in policy) return undefined;
    policy[rule] = Number(n);
  }
  return policy;
}

const DAY = 86_400_000;

/** `YYYY-Www`, the ISO 8601 week of a day. */
export function isoWeek(day: string): string {
  const date = new Date(`${day.slice(0, 10)}T00:00:00Z`);
  // A week belongs to the year of its Thursday, and week 1 holds the year's first Thursday.
  const thursday = new Date(date.getTime() + (3 - ((date.getUTCDay() + 6) % 7)) * DAY);
  const year = thursday.getUTCFullYear();
  const week = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / DAY / 7) + 1;
  return `${year}-W${String(week).padStart(2, '0')}`;
}

const buckets: Record<Exclude<keyof RetentionPolicy, 'last'>, (createdAt: string) => string> = {
  daily: (createdAt) => createdAt.slice(0, 10),
  weekly: isoWeek,
  monthly: (createdAt) => createdAt.slice(0, 7),
};

/** The ids `policy` keeps of `snapshots`, each with the rules that keep it. */
export function chooseKept(snapshots: readonly { readonly id: string; readonly createdAt: string }[], policy: RetentionPolicy): Map<string, string[]> {
  const kept = new Map<string, string[]>();
  const keep = (id: string, rule: string) => kept.set(id, [...(kept.get(id) ?? []), rule]);
  const newestFirst = [...snapshots].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1));
  newestFirst.slice(0, policy.last ?? 0).forEach((s) => keep(s.id, 'last'));
  for (const [rule, bucketOf] of Object.entries(buckets)) {
    let left = policy[rule as keyof typeof buckets] ?? 0;
    let previous: string | undefined;
    for (const snapshot of newestFirst) {
      if (left <= 0) break;
      const bucket = bucketOf(new Date(snapshot.createdAt).toISOString());
      if (bucket === previous) continue;
      previous = bucket;
      keep(snapshot.id, rule);
      left--;
    }
  }
  return kept;
}

export interface PruneResult {
  /** Every snapshot, with why it stays (the rules that keep it, `current`, `in use`) or `removed`. */
  readonly decisions: readonly { readonly id: string; readonly createdAt: string; readonly kept: readonly string[] }[];
  readonly removed: readonly string[];
  /** Bytes the removal frees: files no kept snapshot links (nor anything outside the snapshots), and the removed snapshots' caches. */
  readonly freedBytes: number;
  readonly dryRun: boolean;
}

/**
 * Removes the snapshots `policy` does not keep, but never the current one, one a running process
 * reads (see readers.ts), or any while a pull works (the data directory's lock, held meanwhile).
 * Each goes in one rename out of `snapshots/` before its files are deleted, so a prune that dies
 * half-way leaves no half snapshot behind (what it left in `.staging/` goes with the next write).
 */
export async function prune(dataDir: string, policy: RetentionPolicy, options: { dryRun?: boolean } = {}): Promise<PruneResult> {
  const layout = dataLayout(dataDir);
  const unlock = await lockDataDir(dataDir, 'prune');
  try {
    // Those without a readable manifest are left alone: nothing says when they were made.
    const snapshots = (await listSnapshots(dataDir)).flatMap((s) =>
      'manifest' in s ? [{ id: s.id, current: s.current, createdAt: s.manifest.createdAt }] : [],
    );
    const chosen = chooseKept(snapshots, policy);
    const read = snapshotsRead(dataDir);
    const decisions = snapshots.map((s) => ({
      id: s.id,
      createdAt: s.createdAt,
      kept: [...(chosen.get(s.id) ?? []), ...(s.current ? ['current'] : []), ...(read.has(s.id) ? ['in use'] : [])],
    }));
    const removed = decisions.filter((d) => !d.kept.length).map((d) => d.id);
    if (options.dryRun)
      return {
        decisions,
        removed,
        freedBytes: await freedBy(
          dataDir,
          removed.map((id) => layout.snapshot(id)),
          removed,
        ),
        dryRun: true,
      };
    await mkdir(layout.staging, { recursive: true });
    const aside = new Map<string, string>();
    for (const id of [...removed]) {
      const path = join(layout.staging, `${process.pid}-pruned-${id}`);
      await rename(layout.snapshot(id), path);
      // A reader that began after the marks were read (see markReading) keeps it after all.
      if (snapshotsRead(dataDir).has(id)) {
        await rename(path, layout.snapshot(id));
        removed.splice(removed.indexOf(id), 1);
        decisions.find((d) => d.id === id)!.kept.push('in use');
      } else aside.set(id, path);
    }
    const freedBytes = await freedBy(dataDir, [...aside.values()], removed);
    for (const [id, path] of aside) {
      await rm(path, { recursive: true, force: true });
      await rm(snapshotCacheDir(dataDir, id), { recursive: true, force: true });
    }
    return { decisions, removed, freedBytes, dryRun: false };
  } finally {
    await unlock();
  }
}

/**
 * Removes the derived files (the server's database, its record files) of every snapshot but the
 * current one and those a running process reads: a long-running mirror keeps many snapshots for
 * history, and each pull's serve check leaves the new one's database; a past snapshot asked for
 * again has its database built on demand, as after any cache is cleared. Returns how many went.
 */
export async function dropIdleCaches(dataDir: string): Promise<number> {
  const current = await currentSnapshotId(dataDir);
  const read = snapshotsRead(dataDir);
  let dropped = 0;
  for (const s of await listSnapshots(dataDir)) {
    if (s.id === current || read.has(s.id)) continue;
    const dir = snapshotCacheDir(dataDir, s.id);
    if (!existsSync(dir)) continue;
    await rm(dir, { recursive: true, force: true });
    dropped++;
  }
  return dropped;
}

/** What removing the snapshot directories `dirs` (of snapshots `ids`) and their caches frees: files all of whose links are among them. */
async function freedBy(dataDir: string, dirs: readonly string[], ids: readonly string[]): Promise<number> {
  const files: Links = new Map();
  for (const dir of dirs) await linksUnder(dir, files);
  let bytes = [...files.values()].filter((file) => file.seen === file.links).reduce((sum, file) => sum + file.bytes, 0);
  for (const id of ids) bytes += [...(await linksUnder(snapshotCacheDir(dataDir, id))).values()].reduce((sum, file) => sum + file.bytes, 0);
  return bytes;
}
