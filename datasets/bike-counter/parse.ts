import type { RowOf } from '../../core/table.ts';
import type { ParseContext } from '../vocabulary/parse.ts';
import type { Counter, CounterReading } from './resources.ts';
import { instantMs } from '../../core/zoned-time.ts';
import type * as tables from './tables.ts';

/** How upstream counter records become rows: the inverses of render.ts. */

export const parseCounter = (c: Counter): RowOf<typeof tables.counters.columns> => ({
  id: c.id,
  name: c.name,
  provider: c.provider,
  external_id: c.externalId,
  lat: c.location.lat,
  lon: c.location.lon,
  active_from: instantMs(c.activeFrom),
  active_to: c.activeTo === null ? null : instantMs(c.activeTo),
  last_synchronized_at: instantMs(c.lastSynchronizedAt),
});

/** A reading does not name its counter: the request's path does. */
export const parseReading = (r: CounterReading, context: ParseContext): RowOf<typeof tables.readings.columns> => ({
  counter_id: context.params.counterId!,
  read_at: instantMs(r.readAt),
  value: r.value,
});
