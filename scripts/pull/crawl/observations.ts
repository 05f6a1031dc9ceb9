import type { ZoneOffsets } from '../../../core/zoned-time.ts';
import type { Observed, RangeFacts } from '../../../datasets/answers/crawling.ts';
import type { EnvelopeSeen, NextSeen } from '../../../datasets/answers/envelope.ts';
import { mergedEscapes, type EscapeEvidence } from '../../../datasets/vocabulary/written.ts';

/**
 * What a crawl learns of its upstream beyond the records: what each endpoint's answers showed
 * (see Observed) and how the answers escaped their strings. Units say it in their meta, so a
 * resumed pull learns it again from the journal; pulled-snapshot.ts keeps what holds throughout.
 */

/** What an endpoint's answers showed beyond their records, as this pull saw them (see Observed); pulled-snapshot.ts learns from it. */
export interface EndpointObservations {
  defaults?: Record<string, string>;
  envelopes?: EnvelopeSeen[];
  nexts?: NextSeen[];
  range?: RangeFacts;
  zoneOffsets?: Partial<ZoneOffsets>;
}

/** What a unit's meta says it saw, fetched now or read back from the journal. */
export interface UnitObserved {
  readonly observed?: Observed;
  readonly escapes?: EscapeEvidence;
}

export class Observations {
  /** How the upstream's answers escaped their strings, as far as this crawl saw (see escapesIn). */
  escapes: EscapeEvidence = {};
  /** What the endpoints' answers showed beyond their records (see Observed), by endpoint. */
  private readonly endpoints = new Map<string, EndpointObservations>();

  /** Takes in what a unit saw, as its meta says. */
  take(meta: UnitObserved | undefined): void {
    if (meta?.observed) this.observe(meta.observed);
    if (meta?.escapes) this.escapes = mergedEscapes(this.escapes, meta.escapes);
  }

  /** What the data set's endpoints showed beyond their records, by endpoint. */
  byEndpoint(): Record<string, EndpointObservations> {
    return Object.fromEntries(this.endpoints);
  }

  private observe({ endpoint, defaults, envelopes, nexts, range, zoneOffsets }: Observed): void {
    const entry = this.endpoints.get(endpoint) ?? {};
    if (defaults) entry.defaults = { ...entry.defaults, ...defaults };
    if (range) entry.range = { ...entry.range, ...range };
    if (zoneOffsets) entry.zoneOffsets = { ...entry.zoneOffsets, ...zoneOffsets };
    if (envelopes?.length) (entry.envelopes ??= []).push(...envelopes);
    if (nexts?.length) (entry.nexts ??= []).push(...nexts);
    this.endpoints.set(endpoint, entry);
  }
}
