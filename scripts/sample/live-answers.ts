import { Problem } from '../../core/problem.ts';
import { answerAs } from '../../datasets/answers/index.ts';
import { serialize } from '../../datasets/answers/serving.ts';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { Endpoint } from '../../datasets/vocabulary/endpoint.ts';
import { renderContext } from '../../datasets/vocabulary/render.ts';
import { createRouter } from '../../datasets/vocabulary/router.ts';
import { liveQuery } from './live-query.ts';
import { liveRowsAt, minuteOf, type LiveRows, type SampleCity } from './live-rows.ts';

/** One live answer of a minute: the path asked (path values filled in) and the body, as `odsnap serve` writes it. */
export interface LiveAnswer {
  readonly path: string;
  readonly body: string;
}

/** A live endpoint's answer declaration: a custom answer that reads live captures, i.e. shows the present. */
function presentAnswerOf(dataset: Dataset, endpoint: Endpoint) {
  const answer = answerAs(endpoint.answer, 'custom');
  const live = (resource: string) => dataset.tables[dataset.resources[resource]!.table]!.liveCaptures === true;
  return answer?.reads.some(live) ? answer : undefined;
}

/**
 * The live endpoints of a sample city at any minute, answered by their own declarations over the
 * minute's rows (live-query.ts). The last minutes asked are kept, as a mirror asks each many times.
 */
export class LiveAnswers {
  private readonly route: ReturnType<typeof createRouter>;
  private readonly minutes = new Map<number, LiveRows>();

  constructor(
    private readonly datasets: readonly Dataset[],
    private readonly sample: SampleCity,
  ) {
    this.route = createRouter(datasets);
  }

  /** Whether a path is a live endpoint's. */
  isLive(path: string): boolean {
    const found = this.route(path);
    return found !== undefined && presentAnswerOf(found.dataset, found.endpoint) !== undefined;
  }

  /**
   * The body of `path` and `search` at the minute of `at`, links on `base`; undefined where this
   * is not what answers it: no live endpoint, another snapshot asked for, parameters refused or a
   * value not found (`odsnap serve` answers those, with its problems, from the same stations).
   */
  async answer(at: number, path: string, search: URLSearchParams, base: string): Promise<Buffer | undefined> {
    const found = this.route(path);
    const answer = found && presentAnswerOf(found.dataset, found.endpoint);
    const query = Object.fromEntries(search);
    if (!found || !answer || 'snapshot' in query || Object.keys(query).length !== [...search.keys()].length) return undefined;
    const parsed = found.endpoint.parse({ ...query, ...found.params });
    if (!parsed.success) return undefined;
    // The sample city's snapshots learned no envelope or escapes from an upstream: the answer is its body as it is.
    const context = renderContext({ baseUrl: base, timeZone: (parsed.data.timezone as string | undefined) ?? 'UTC' });
    try {
      const query = liveQuery(found.dataset, this.rowsAt(at)[found.dataset.name]!, context);
      return serialize(await answer.answer(query, parsed.data, context));
    } catch (error) {
      if (error instanceof Problem) return undefined;
      throw error;
    }
  }

  /** Every live answer at the minute of `at`: one per endpoint, or per value of its path parameters (a device's each station's). */
  async all(at: number, base: string): Promise<LiveAnswer[]> {
    const answers: LiveAnswer[] = [];
    for (const dataset of this.datasets) {
      for (const endpoint of dataset.endpoints) {
        const answer = presentAnswerOf(dataset, endpoint);
        if (!answer) continue;
        let paths = [endpoint.fullPath];
        for (const param of endpoint.pathParams) {
          const each = answer.each![param]!;
          const rows = await liveQuery(dataset, this.rowsAt(at)[dataset.name]!, renderContext({ baseUrl: base })).rows(each.resource);
          const values = [...new Set(rows.map((row) => row[each.column]).filter((value) => value !== null && value !== undefined))].map(String);
          paths = paths.flatMap((path) => values.map((value) => path.replace(`{${param}}`, encodeURIComponent(value))));
        }
        for (const path of paths) {
          const body = await this.answer(at, path, new URLSearchParams(), base);
          if (body) answers.push({ path, body: body.toString() });
        }
      }
    }
    return answers;
  }

  private rowsAt(at: number): LiveRows {
    const minute = minuteOf(at);
    let rows = this.minutes.get(minute);
    if (!rows) {
      if (this.minutes.size >= 4) this.minutes.delete(this.minutes.keys().next().value!);
      this.minutes.set(minute, (rows = liveRowsAt(this.datasets, this.sample, minute)));
    }
    return rows;
  }
}

/** What a sample city's live endpoints showed at the minute of `at`, every one, links on `base`: what a mirror's archive of that minute should hold. */
export const liveAnswersAt = (datasets: readonly Dataset[], sample: SampleCity, at: number, base: string): Promise<LiveAnswer[]> =>
  new LiveAnswers(datasets, sample).all(at, base);
