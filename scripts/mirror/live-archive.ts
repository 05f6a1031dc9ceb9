import { existsSync } from 'node:fs';
import { appendFile, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { dataLayout } from '../../core/snapshot/layout.ts';
import type { LiveGap } from '../../core/mirror-status.ts';
import { Journal } from '../pull/journal.ts';
import { entriesOf, RawJson, type Batch, type Entry } from '../pull/journal-line.ts';

/**
 * The live archive: every capture of the live feeds a long-running mirror makes between its
 * pulls. A capture is kept as a pull journals it (the feed's answer as the upstream wrote it, and
 * where its records are), one line in the journal of its UTC hour:
 *
 *   <data>/live/<YYYY-MM-DD>/<HH>.journal   the captures of that hour, in the order made
 *   <data>/live/gaps.ndjson                 minutes with no capture, and why
 *
 * A line is written whole or, after a kill, torn and passed over; so a capture is either in the
 * archive or in a gap. A pull commits the captures made since its previous snapshot's last one
 * into the new snapshot's live tables (see `capturesAfter`), where they are published as every
 * other table is.
 */
export class LiveArchive {
  readonly dir: string;
  private open: { readonly hour: string; readonly journal: Journal } | undefined;

  constructor(dataDir: string) {
    this.dir = join(dataLayout(dataDir).root, 'live');
  }

  /** Appends a capture (a unit of a crawl of a live feed), keyed by the feed's path and its time, to its hour's journal. */
  async append(entry: Entry, at: number, feed: string): Promise<void> {
    const hour = hourOf(at);
    if (this.open?.hour !== hour) {
      this.open?.journal.close();
      this.open = undefined;
      const file = this.hourFile(hour);
      await mkdir(join(file, '..'), { recursive: true });
      this.open = { hour, journal: await Journal.open(file) };
    }
    const { meta, dataset, batches, texts } = entry;
    this.open.journal.append({
      key: `${feed} at ${new Date(at).toISOString()}`,
      meta,
      ...(dataset ? { dataset } : {}),
      batches: (batches ?? []) as Batch[],
      answers: (texts ?? []).map((text) => new RawJson(text)),
    });
  }

  /**
   * The captures of the data set made after `after` (epoch ms), as journal entries in the order
   * made: what a pull commits into its snapshot. Reads hours another process may be appending to.
   */
  async *capturesAfter(dataset: string, after: number): AsyncGenerator<Entry> {
    for (const hour of await this.hours()) {
      if (Number.isFinite(after) && hour < hourOf(after)) continue;
      for await (const entry of entriesOf(this.hourFile(hour))) {
        if (entry.dataset === dataset && capturedAt(entry) > after) yield entry;
      }
    }
  }

  /** Records minutes with no capture of a feed. */
  async recordGap(feed: string, gap: LiveGap): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await appendFile(join(this.dir, 'gaps.ndjson'), `${JSON.stringify({ feed, ...gap })}\n`);
  }

  /** Every gap recorded, oldest first. */
  async gaps(): Promise<(LiveGap & { readonly feed: string })[]> {
    const text = await readFile(join(this.dir, 'gaps.ndjson'), 'utf8').catch(() => '');
    // A line torn by a kill is passed over, as in the hours' journals.
    return text
      .split('\n')
      .filter((line, i, lines) => line && i < lines.length - 1)
      .map((line) => JSON.parse(line));
  }

  /** The time of the last capture of a feed (by its path) in the archive (epoch ms), looked for in the newest hours first. */
  async lastCapture(feed: string): Promise<number | undefined> {
    for (const hour of (await this.hours()).reverse()) {
      let last: number | undefined;
      for await (const entry of entriesOf(this.hourFile(hour))) if (entry.key.startsWith(`${feed} at `)) last = capturedAt(entry);
      if (last !== undefined) return last;
    }
    return undefined;
  }

  /**
   * Removes the hours that ended by `at` (epoch ms): once a snapshot holds their captures (in its
   * live tables, Parquet), the journals are what a later snapshot no longer needs. Returns how many.
   */
  async dropHoursBefore(at: number): Promise<number> {
    let dropped = 0;
    for (const hour of await this.hours()) {
      if (Date.parse(`${hour}:00:00Z`) + 3_600_000 > at || hour === this.open?.hour) continue;
      await rm(this.hourFile(hour), { force: true });
      dropped++;
      const day = join(this.dir, hour.slice(0, 10));
      if (!(await readdir(day)).length) await rm(day, { recursive: true, force: true });
    }
    return dropped;
  }

  /** The journal of the newest hour the archive holds, if any. */
  async newestHourFile(): Promise<string | undefined> {
    const hour = (await this.hours()).at(-1);
    return hour ? this.hourFile(hour) : undefined;
  }

  /** Every whole entry of an hour's journal, in the order made. */
  async entriesIn(file: string): Promise<Entry[]> {
    const entries: Entry[] = [];
    for await (const entry of entriesOf(file)) entries.push(entry);
    return entries;
  }

  close(): void {
    this.open?.journal.close();
    this.open = undefined;
  }

  private hourFile(hour: string): string {
    return join(this.dir, hour.slice(0, 10), `${hour.slice(11, 13)}.journal`);
  }

  /** The hours the archive holds, `YYYY-MM-DDTHH`, oldest first. */
  private async hours(): Promise<string[]> {
    if (!existsSync(this.dir)) return [];
    const days = (await readdir(this.dir)).filter((name) => /^\d{4}-\d\d-\d\d$/.test(name)).sort();
    const hours: string[] = [];
    for (const day of days) {
      for (const name of (await readdir(join(this.dir, day))).sort()) {
        const hour = /^(\d\d)\.journal$/.exec(name)?.[1];
        if (hour) hours.push(`${day}T${hour}`);
      }
    }
    return hours;
  }
}

/** `YYYY-MM-DDTHH`, the UTC hour of an instant. */
const hourOf = (at: number) => new Date(at).toISOString().slice(0, 13);

/** When a capture was made: when its answer came (the time its rows are stamped with). */
export const capturedAt = (entry: Entry): number => entry.batches?.[0]?.fetchedAt ?? 0;

/**
 * When a capture was asked for: the feed showed what it holds at some moment from then to its
 * capturedAt. Undefined for a capture archived before captures recorded it.
 */
export const askedAt = (entry: Entry): number | undefined => entry.batches?.[0]?.askedAt;
