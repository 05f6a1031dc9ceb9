import { mkdir, readFile, rename, rm, statfs, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { SampleSettings } from '../../datasets/vocabulary/sample.ts';
import { dataLayout } from '../../core/snapshot/layout.ts';
import { lockDataDir } from '../../core/snapshot/data-lock.ts';
import type { WrittenSnapshot } from '../../core/snapshot/write.ts';
import { paceHeap } from '../../core/heap.ts';
import { writePulledSnapshot } from './pulled-snapshot.ts';
import type { TablePlan } from '../../datasets/answers/crawling.ts';
import { DatasetCrawl } from './crawler.ts';
import { spoilsJournal } from './crawl/failures.ts';
import { commitCaptures, type Captures } from './captures.ts';
import { Journal } from './journal.ts';
import { defaultPullLimits, type PullLimits } from './limits.ts';
import { Previous } from './previous.ts';
import { escapesOf, mergedEscapes, type EscapeEvidence, type Escapes } from '../../datasets/vocabulary/written.ts';
import { learnPublicBase } from './public-base.ts';
import type { PullReport } from './report.ts';
import { Upstream, type UpstreamOptions } from './upstream.ts';

/**
 * A pull: crawl the chosen data sets from an upstream into the journal, then build a snapshot
 * from it and make that current. The journal and the run's settings live in `<data>/.pull/`
 * until the snapshot is published, so a pull that stops for any reason is resumed by running it
 * again with the same arguments; only then is the directory removed. A pull that failed for
 * another reason than the network (an answer v1 does not allow, a limit, a crash, a snapshot that
 * cannot be built or served: see spoilsJournal) may have its cause in the journal, which would
 * fail every run that resumed it: the journal is then set aside in `<data>/.pull-set-aside/`, and
 * the next pull starts afresh.
 */

export interface PullOptions {
  readonly dataDir: string;
  /** The upstream's base URL. */
  readonly from: string;
  /** Every data set a snapshot holds. */
  readonly datasets: readonly Dataset[];
  /** Names of the data sets to pull; the others are carried from the previous snapshot. */
  readonly only?: readonly string[];
  /** Fetch everything again rather than only what is new since the previous snapshot. */
  readonly full?: boolean;
  readonly upstream?: Partial<Omit<UpstreamOptions, 'baseUrl' | 'onRetry'>>;
  /** What the pull takes from the upstream at most (see limits.ts). */
  readonly limits?: Partial<PullLimits>;
  /** Checks the new snapshot can be served before it becomes current (the CLI builds the server's database). */
  readonly servable?: (snapshot: WrittenSnapshot) => Promise<void>;
  readonly report: PullReport;
  /** Set when the upstream is odsnap serving its sample city: the snapshot then says its records are synthetic. */
  readonly sample?: SampleSettings;
  /** The pull's clock (epoch ms): its start, and the time of its answers (a long-running mirror's may run fast, in tests). */
  readonly now?: () => number;
  /** Live captures made since the previous snapshot (a long-running mirror's live archive), which the new snapshot takes. */
  readonly captures?: Captures;
}

export interface PullResult {
  readonly ok: boolean;
  readonly snapshot?: WrittenSnapshot;
  readonly failures: readonly string[];
  /** Where the journal of a failed pull was set aside, when it cannot be resumed. */
  readonly setAside?: string;
  readonly resumed: boolean;
  readonly requests: number;
  readonly retries: number;
  readonly bytes: number;
  readonly quarantined: number;
  readonly seconds: number;
  /** Rows of each table of the new snapshot, and how many of them came from the previous one. */
  readonly tables: readonly { readonly table: string; readonly rows: number; readonly carried: number }[];
}

interface RunSettings {
  readonly upstream: string;
  readonly datasets: readonly string[];
  readonly full: boolean;
  readonly previous: string | null;
  /** Epoch ms; the snapshot's creation time and the crawl's "today", kept when resumed. */
  readonly startedAt: number;
}

export async function pull(options: PullOptions): Promise<PullResult> {
  const started = Date.now();
  const now = options.now ?? Date.now;
  const report = options.report;
  const layout = dataLayout(options.dataDir);
  const runDir = join(layout.root, '.pull');
  const unlock = await lockDataDir(options.dataDir, 'pull');
  const upstreamUrl = options.from.replace(/\/+$/, '');
  const chosen = options.datasets.filter((d) => !options.only || options.only.includes(d.name));
  const limits: PullLimits = { ...defaultPullLimits, ...options.limits };

  let previous: Previous | undefined;
  const client = new Upstream({
    ...options.upstream,
    baseUrl: upstreamUrl,
    onRetry: ({ url, attempt, reason, waitMs, retryAfterMs }) => {
      const dataset = chosen.find((d) => new URL(url).pathname.includes(`${d.prefix}/`) || new URL(url).pathname.endsWith(d.prefix));
      if (dataset) report.tally(dataset.name).retries++;
      // A long wait says until when, so a pull that seems stuck is seen to be waiting.
      const until = waitMs >= 10_000 ? { until: new Date(Date.now() + waitMs).toISOString() } : {};
      report.event('retry', {
        url,
        attempt,
        reason,
        waitSeconds: Math.round(waitMs / 100) / 10,
        ...(retryAfterMs !== undefined ? { retryAfter: 'as the upstream asked' } : {}),
        ...until,
      });
    },
  });
  let journal: Journal | undefined;
  const aside = join(layout.root, '.pull-set-aside');
  /** Sets the run's journal aside (see moveAside), saying why; returns where it went. */
  const setAside = async (reason: string): Promise<string> => {
    journal?.close();
    journal = undefined;
    await moveAside(runDir, aside);
    report.event('journal set aside', { reason, to: aside, then: 'the next pull starts afresh; delete it once looked at' });
    return aside;
  };
  const stopPacing = paceHeap();
  try {
    const opened = await Previous.open(options.dataDir, upstreamUrl, join(runDir, 'spill'), options.datasets);
    if (typeof opened === 'string') report.event('full pull', { reason: opened });
    else previous = opened;

    const wanted: Omit<RunSettings, 'startedAt'> = {
      upstream: upstreamUrl,
      datasets: chosen.map((d) => d.name),
      full: Boolean(options.full),
      previous: previous?.id ?? null,
    };
    const settingsFile = join(runDir, 'run.json');
    const journalFile = join(runDir, 'journal.ndjson');
    const earlier = await readFile(settingsFile, 'utf8').then(
      (text) => JSON.parse(text) as RunSettings,
      () => undefined,
    );
    let resumed = earlier !== undefined && sameRun(earlier, wanted);
    const settings: RunSettings = resumed ? earlier! : { ...wanted, startedAt: now() };
    if (!resumed) {
      if (earlier) report.event('discarding an interrupted pull', { reason: 'it was started with other arguments or on another snapshot', ...earlier });
      await rm(journalFile, { force: true });
      await writeFile(settingsFile, JSON.stringify(settings, null, 2) + '\n');
    }
    const answerBytes = limits.maxAnswerBytes ?? (await freeBytes(options.dataDir));
    const openJournal = () =>
      Journal.open(journalFile, {
        maxDepth: options.upstream?.maxDepth,
        maxBytes: limits.maxJournalBytes,
        maxPlain: {
          bytes: answerBytes,
          name: limits.maxAnswerBytes === undefined ? "--max-answers, unset: the free space on the data directory's disk as the pull began" : '--max-answers',
        },
        onUnreadable: (offset, reason) => report.event('journal-line-unreadable', { offset, reason, then: 'its unit is fetched again' }),
      });
    journal = await openJournal().catch(async (error: Error) => {
      await setAside(`it cannot be opened: ${error.message}`);
      resumed = false;
      await writeFile(settingsFile, JSON.stringify(settings, null, 2) + '\n');
      return openJournal();
    });
    if (resumed) report.event('resuming', { units: journal.units, startedAt: new Date(settings.startedAt).toISOString() });

    const concurrency = options.upstream?.concurrency ?? 4;
    const crawls = chosen.map(
      (dataset) =>
        new DatasetCrawl({
          dataset,
          upstream: client,
          upstreamUrl,
          journal: journal!,
          previous: settings.full ? undefined : previous,
          startedAt: settings.startedAt,
          parallel: concurrency * 2,
          limits,
          tally: report.tally(dataset.name),
          log: (event, fields) => report.event(event, fields),
          now,
        }),
    );
    report.start();
    const failures: string[] = [];
    let unresumable: string | undefined;
    try {
      await Promise.all(crawls.map((crawl) => crawl.run()));
    } catch (error) {
      failures.push((error as Error).message);
      if (spoilsJournal(error)) unresumable = (error as Error).message;
    } finally {
      report.stop();
    }
    failures.push(...crawls.flatMap((crawl) => crawl.failures.messages));
    const totals = {
      resumed,
      requests: client.stats.requests,
      retries: client.stats.retries,
      bytes: client.stats.bytes,
    };
    unresumable ??= crawls.find((crawl) => crawl.failures.unresumable)?.failures.unresumable;
    const failed = async (why: readonly string[], asideBecause: string | undefined): Promise<PullResult> => {
      const where = asideBecause === undefined ? undefined : await setAside(asideBecause);
      return { ok: false, failures: why, ...(where ? { setAside: where } : {}), ...totals, quarantined: 0, seconds: (Date.now() - started) / 1000, tables: [] };
    };
    if (failures.length) return await failed(failures, unresumable);
    if (options.captures) {
      for (const dataset of chosen) {
        const committed = await commitCaptures(journal, dataset, settings.full ? undefined : previous, options.captures);
        if (committed) report.event('live captures committed', { dataset: dataset.name, captures: committed });
      }
    }

    const publicBase = learnPublicBase(journal, upstreamUrl);
    if (publicBase !== upstreamUrl) report.event('links', { publicBase, pulledFrom: upstreamUrl });
    report.event('building the snapshot', { units: journal.units });
    const plans = new Map<string, ReadonlyMap<string, TablePlan>>(crawls.map((crawl, i) => [chosen[i]!.name, crawl.plans.byTable]));
    let built: Awaited<ReturnType<typeof writePulledSnapshot>>;
    try {
      built = await writePulledSnapshot({
        dataDir: options.dataDir,
        datasets: options.datasets,
        plans,
        journal,
        previous,
        upstream: upstreamUrl,
        publicBase,
        endpoints: Object.assign({}, ...crawls.map((crawl) => crawl.observations.byEndpoint())),
        escapes: escapesOf(
          crawls.reduce<EscapeEvidence>((evidence, crawl) => mergedEscapes(evidence, crawl.observations.escapes), {}),
          previousSource(previous),
        ),
        sample: options.sample,
        createdAt: settings.startedAt,
        limits,
        servable: options.servable,
        log: (line) => report.event(line),
      });
    } catch (error) {
      report.event('failed', { error: (error as Error).message });
      return await failed([(error as Error).message], `the snapshot was not published: ${(error as Error).message}`);
    }
    for (const [name, count] of Object.entries(built.quarantined)) report.tally(name).quarantined = count;
    journal.close();
    journal = undefined;
    await rm(runDir, { recursive: true, force: true });
    const tables = Object.entries(built.snapshot.manifest.datasets).flatMap(([dataset, { tables }]) =>
      Object.entries(tables).map(([name, table]) => ({ table: `${dataset}/${name}`, rows: table.rows, carried: built.carriedRows[`${dataset}/${name}`] ?? 0 })),
    );
    const quarantined = Object.values(built.quarantined).reduce((sum, n) => sum + n, 0);
    return { ok: true, snapshot: built.snapshot, failures: [], ...totals, quarantined, seconds: (Date.now() - started) / 1000, tables };
  } finally {
    stopPacing();
    journal?.close();
    previous?.close();
    client.close();
    await unlock();
  }
}

/**
 * Moves the run's journal and settings out of the way, to `.pull-set-aside/` (replacing what an
 * earlier pull set aside there), so that the next pull starts afresh; the journal is kept to see
 * what the upstream sent.
 */
async function moveAside(runDir: string, aside: string): Promise<void> {
  await rm(aside, { recursive: true, force: true });
  await mkdir(aside, { recursive: true });
  for (const name of ['journal.ndjson', 'run.json']) {
    await rename(join(runDir, name), join(aside, name)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
}

/** Bytes free to an unprivileged writer on the disk holding a directory. */
async function freeBytes(dir: string): Promise<number> {
  const { bavail, bsize } = await statfs(dir);
  return bavail * bsize;
}

const sameRun = (earlier: RunSettings, wanted: Omit<RunSettings, 'startedAt'>) =>
  earlier.upstream === wanted.upstream &&
  earlier.full === wanted.full &&
  earlier.previous === wanted.previous &&
  earlier.datasets.join() === wanted.datasets.join();

/** The previous snapshot's source, where it was pulled. */
function previousSource(previous: Previous | undefined): { readonly escapes?: Escapes } | undefined {
  const source = previous?.snapshot.manifest.source;
  return source?.kind === 'pull' ? source : undefined;
}
