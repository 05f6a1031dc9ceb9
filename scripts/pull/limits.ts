import type { CrawlLimits } from '../../datasets/answers/crawling.ts';

/**
 * What a pull takes from an upstream at most, whatever the upstream says: an upstream that is
 * broken, or a man in the middle on plain http, can otherwise page it without end, fill the disk
 * with its journal, or publish a snapshot that is gutted or that no server can open. Each limit is
 * a pull option (named in the failure it causes) with a default well past what the real service
 * needs: at city scale the largest list holds about 240,000 records, a window of rides about 45
 * pages, the journal about 1.3 GB.
 */
export interface PullLimits extends CrawlLimits {
  /** Bytes the journal may take on disk, its answers compressed (`--max-journal`): past it the pull stops. */
  readonly maxJournalBytes: number;
  /**
   * Bytes the upstream's answers may take once read (`--max-answers`): the snapshot stages rows from
   * them on the data directory's disk, and answers that pack small would pass --max-journal a
   * hundredfold. Past it the pull stops. Unset, the free space of that disk when the pull begins.
   */
  readonly maxAnswerBytes?: number;
  /**
   * The largest value stored, in bytes: a string, or a JSON value as text (`--max-value`). A record
   * holding a larger one is quarantined with the reason: the server's database could not hold it.
   */
  readonly maxValueBytes: number;
  /**
   * The share of the records a table got in this pull that may be quarantined (`--max-quarantine`,
   * 0.01 for 1%). Past it, and past QUARANTINE_FLOOR records, or when every record of a table was
   * quarantined, the pull fails rather than publish the table gutted.
   */
  readonly maxQuarantined: number;
}

export const defaultPullLimits: PullLimits = {
  maxRecords: 2_000_000,
  maxPages: 10_000,
  maxJournalBytes: 8 * 1024 ** 3,
  maxValueBytes: 1024 ** 2,
  maxQuarantined: 0.01,
};

/**
 * Quarantined records of a table a pull accepts whatever their share: one odd record among the
 * 40 bicycles of a small city is not a gutted table, and is said in the summary.
 */
export const QUARANTINE_FLOOR = 10;

/** A size as the options take it: bytes, or with a unit (KB, MB, GB decimal; KiB, MiB, GiB binary). */
export function parseSize(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|KiB|MiB|GiB)?$/i.exec(text.trim());
  if (!match) return undefined;
  const unit = (match[2] ?? 'B').toLowerCase();
  const scale: Record<string, number> = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };
  return Math.floor(Number(match[1]) * scale[unit]!);
}

/** A size as the options write it: 8 GiB, 1 MiB, 1.5 MiB, 300 B. */
export function sizeText(bytes: number): string {
  for (const [unit, scale] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= scale) return `${Number((bytes / scale).toFixed(1))} ${unit}`;
  }
  return `${bytes} B`;
}
