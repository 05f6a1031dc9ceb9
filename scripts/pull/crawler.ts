import { utcDayOf } from '../../core/calendar.ts';
import type { Table } from '../../core/table.ts';
import { kindOf } from '../../datasets/answers/index.ts';
import type { Crawl, CrawlLimits, FetchOptions, Fetched, Found, RecordPlace, Span, TablePlan } from '../../datasets/answers/crawling.ts';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { Endpoint } from '../../datasets/vocabulary/endpoint.ts';
import { Failures } from './crawl/failures.ts';
import { Observations } from './crawl/observations.ts';
import { TablePlans } from './crawl/plans.ts';
import { CrawlRows, daysSpanned } from './crawl/rows.ts';
import { Units } from './crawl/units.ts';
import type { Journal } from './journal.ts';
import type { Previous } from './previous.ts';
import type { Tally } from './report.ts';
import type { Upstream } from './upstream.ts';

/**
 * Runs one data set's crawl plan against an upstream: each step names an endpoint, whose answer's
 * kind crawls it (see datasets/answers/, `crawl`) through the `Crawl` this class gives it. A crawl
 * is made of rooms (crawl/): the units of work and their journal (a unit already journalled is
 * not fetched again, so a killed pull resumes where it stopped), the rows it reads itself, what it
 * observes of the upstream beyond records, the plan of each table of the new snapshot (what it
 * takes from the previous one), and its failures; requests go through the upstream client, and
 * progress is counted in the report's tally.
 */

export interface CrawlOptions {
  readonly dataset: Dataset;
  readonly upstream: Upstream;
  readonly upstreamUrl: string;
  readonly journal: Journal;
  readonly previous: Previous | undefined;
  /** Epoch ms the pull started: its "today" (UTC) and the clock of its windows. */
  readonly startedAt: number;
  /** Units in flight at once. */
  readonly parallel: number;
  readonly limits: CrawlLimits;
  readonly tally: Tally;
  readonly log: (event: string, fields: Record<string, unknown>) => void;
  /** The crawl's clock (epoch ms): when an answer came, the capture time of live data. */
  readonly now?: () => number;
}

export class DatasetCrawl implements Crawl {
  readonly today: string;
  readonly observations = new Observations();
  readonly plans: TablePlans;
  readonly failures: Failures;
  private readonly units: Units;
  private readonly rows: CrawlRows;
  private readonly now: () => number;

  constructor(private readonly options: CrawlOptions) {
    const { dataset, upstream, journal, tally, log } = options;
    this.today = utcDayOf(options.startedAt);
    this.plans = new TablePlans(dataset, options.previous, options.upstreamUrl);
    // What ends the whole pull at once: the upstream found down, or the journal full.
    this.failures = new Failures(dataset.name, () => upstream.downError ?? journal.full, log);
    const now = (this.now = options.now ?? Date.now);
    this.units = new Units(dataset, journal, tally, this.observations, log, now);
    this.rows = new CrawlRows(dataset, options.upstreamUrl, journal, now);
  }

  get dataset(): Dataset {
    return this.options.dataset;
  }

  get limits(): CrawlLimits {
    return this.options.limits;
  }

  /** Runs the data set's crawl plan, or the steps of it given (the live captures of a long-running mirror). */
  async run(steps = this.dataset.crawl): Promise<void> {
    for (const step of steps) {
      try {
        const endpoint = this.endpoint(step.path);
        await kindOf(endpoint.answer).crawl!.run(this, step, endpoint, endpoint.answer);
      } catch (error) {
        this.failures.take(error);
      }
    }
  }

  endpoint(path: string): Endpoint {
    return this.dataset.endpoints.find((e) => e.path === path)!;
  }

  // Units of work and their journal (crawl/units.ts).
  has = (unitKey: string): boolean => this.units.has(unitKey);
  unit = <M>(key: string, work: () => Promise<Found<M>>, replay?: (meta: M) => void): Promise<M> => this.units.run(key, work, replay);
  found = <M extends { records?: number }>(
    answers: Fetched | readonly Fetched[],
    path: string,
    params: Readonly<Record<string, string>>,
    places: readonly RecordPlace[],
    meta: M,
  ): Found<M> => this.units.found(answers, path, params, places, meta);

  /** Requests through the upstream client, each attempt counted as the data set's, the answer with when its attempt was sent. */
  async get(path: string, query: Readonly<Record<string, string | number>>, options: FetchOptions): Promise<Fetched> {
    let askedAt: number | undefined;
    const onAttempt = () => {
      this.countRequest();
      askedAt = this.now();
    };
    const got = await this.options.upstream.get(path, { ...query }, { ...options, onAttempt });
    return askedAt === undefined ? got : { ...got, askedAt };
  }

  // The rows the crawl reads itself (crawl/rows.ts).
  table = (resource: string): Table => this.rows.table(resource);
  rowsOf = (unitKey: string): Record<string, unknown>[] => this.rows.ofUnit(unitKey);
  rowsIn = (answers: readonly Fetched[], path: string, params: Readonly<Record<string, string>>, place: RecordPlace): Record<string, unknown>[] =>
    this.rows.inAnswers(answers, path, params, place);
  keepRows = (unitKey: string, resource: string): void => this.rows.keep(unitKey, resource);
  parentsOf = (resource: string): Record<string, unknown>[] => this.rows.parentsOf(resource);
  span = (row: Record<string, unknown>, span: Span): [string, string] => daysSpanned(row, span, this.today);

  // Each table's plan, and what the previous snapshot holds (crawl/plans.ts).
  plan = (table: string, plan: TablePlan): void => this.plans.set(table, plan);
  appendOrReplace = (series: readonly string[], time: string, cutoffs: ReadonlyMap<string, number>): TablePlan =>
    this.plans.appendOrReplace(series, time, cutoffs);
  watermarks = (table: string, columns: readonly string[], time: string): Promise<Map<string, number>> => this.plans.watermarks(table, columns, time);
  fingerprints = (resource: string, id: string): Promise<Map<string, string>> => this.plans.fingerprints(resource, id);

  // Failures (crawl/failures.ts), and work that goes on past one.
  failure = (message: string): void => this.failures.say(message);
  each = <T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> => this.failures.each(items, this.options.parallel, work);

  // Progress, counted in the report's tally (report.ts), and the pull's log.
  planned = (units: number): void => {
    this.options.tally.planned += units;
  };
  done = (): void => {
    this.options.tally.done++;
  };
  log = (event: string, fields: Record<string, unknown>): void => this.options.log(event, fields);

  /** The data set's share of the requests the upstream client sends, retries included, as its total counts them. */
  private readonly countRequest = () => {
    this.options.tally.requests++;
  };
}
