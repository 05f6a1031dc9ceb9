import type { RowOf } from '../../core/table.ts';
import { apiPrefix } from '../vocabulary/dataset.ts';
import type { RenderContext } from '../vocabulary/render.ts';
import type { Counter, CounterReading } from './resources.ts';
import type * as tables from './tables.ts';

export const prefix = apiPrefix('bike-counter');

export const counterPath = (id: string) => `${prefix}/counters/${encodeURIComponent(id)}`;
export const readingsPath = (id: string) => `${counterPath(id)}/readings`;

export const renderCounter = (row: RowOf<typeof tables.counters.columns>, context: RenderContext): Counter => ({
  uri: context.link(counterPath(row.id)),
  id: row.id,
  name: row.name,
  provider: row.provider,
  externalId: row.external_id,
  location: { lat: row.lat, lon: row.lon },
  activeFrom: context.time(row.active_from),
  activeTo: row.active_to === null ? null : context.time(row.active_to),
  lastSynchronizedAt: context.time(row.last_synchronized_at),
});

export const renderReading = (row: RowOf<typeof tables.readings.columns>, context: RenderContext): CounterReading => ({
  readAt: context.time(row.read_at),
  value: row.value,
});

/** The readings response: the request's own address, the counter and its readings. */
export const renderReadings = (counterId: string, range: { from: string; to: string }, readings: CounterReading[], context: RenderContext) => ({
  uri: context.link(readingsPath(counterId), range),
  counterUri: context.link(counterPath(counterId)),
  counterId,
  readings,
});
