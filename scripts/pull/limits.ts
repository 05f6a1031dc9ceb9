import type { CrawlLimits } from '../../datasets/answers/crawling.ts';

/**
 * What a pull takes from an upstream at most, whatever the upstream says: an upstream that is
 * broken, or a man in the middle on plain http, can otherwise page it without end. Each limit is
 * a pull option (named in the failure it causes) with a default well past what the real service
 * needs: at city scale the largest list holds about 240,000 records, a window of rides about 45
 * pages.
 */
export interface PullLimits extends CrawlLimits {
}

export const defaultPullLimits: PullLimits = {
  maxRecords: 2_000_000,
  maxPages: 10_000,
};
