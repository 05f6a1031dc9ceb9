import type { TablePlan } from '../../../datasets/answers/crawling.ts';
import type { Dataset } from '../../../datasets/vocabulary/dataset.ts';
import type { Previous } from '../previous.ts';

/**
 * What each table of the new snapshot takes from the previous one (carried details, earlier
 * readings), as the kinds' crawls decide from what the previous snapshot holds; without one (a
 * first or a full pull), this pull's rows are all.
 */
export class TablePlans {
  readonly byTable = new Map<string, TablePlan>();

  constructor(
    private readonly dataset: Dataset,
    private readonly previous: Previous | undefined,
    private readonly upstreamUrl: string,
  ) {}

  set(table: string, plan: TablePlan): void {
    this.byTable.set(table, plan);
  }

  appendOrReplace(series: readonly string[], time: string, cutoffs: ReadonlyMap<string, number>): TablePlan {
    return this.previous ? { kind: 'append', series, time, cutoffs } : { kind: 'replace' };
  }

  /** The latest `time` (epoch ms) of each series of the previous snapshot, by seriesKey of `columns`. */
  watermarks(table: string, columns: readonly string[], time: string): Promise<Map<string, number>> {
    return this.previous?.watermarks(this.dataset, table, columns, time) ?? Promise.resolve(new Map<string, number>());
  }

  /** Fingerprints of the previous snapshot's rows of a resource as the upstream listed each, by the record field `id`. */
  fingerprints(resource: string, id: string): Promise<Map<string, string>> {
    return this.previous?.fingerprints(this.dataset, resource, id, this.upstreamUrl) ?? Promise.resolve(new Map<string, string>());
  }
}
