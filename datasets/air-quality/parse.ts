import type { RowOf } from '../../core/table.ts';
import type { ParseContext } from '../vocabulary/parse.ts';
import type { HistoryReading, LiveReading, LiveStation, Sensor, Station } from './resources.ts';
import { instantMs } from '../../core/zoned-time.ts';
import type * as tables from './tables.ts';

/** How upstream air-quality records become rows: the inverses of render.ts. */

export const parseStation = (s: Station): RowOf<typeof tables.stations.columns> => ({
  id: s.id,
  provider: s.provider,
  external_id: s.externalId,
  name: s.name,
  address: s.address,
  city: s.city,
  source: s.source,
  lat: s.location.lat,
  lon: s.location.lon,
  history_enabled: s.historyEnabled,
});

export const parseSensor = (s: Sensor): RowOf<typeof tables.sensors.columns> => ({
  code: s.code,
  label: s.label,
  unit: s.unit,
  icon: s.icon,
  sort_order: s.sortOrder,
  group_code: s.groupCode,
  group_order: s.groupOrder,
  min_value: s.minValue,
  max_value: s.maxValue,
  fade_start_minutes: s.fadeStartMinutes,
  max_age_minutes: s.maxAgeMinutes,
  legend: s.legend,
});

/** A history reading names neither station nor sensor: the request's path does. */
export const parseHistoryReading = (r: HistoryReading, context: ParseContext): RowOf<typeof tables.readings.columns> => ({
  station_id: context.params.stationId!,
  sensor_code: context.params.sensorCode!,
  read_at: instantMs(r.readAt),
  value: r.value,
});

export const parseLiveStation = (s: LiveStation, context: ParseContext): RowOf<typeof tables.live_stations.columns> => ({
  captured_at: context.fetchedAt,
  station_id: s.stationId,
  error: s.error === null ? null : context.json(s.error),
});

/** A live reading sits inside its station's entry, whose id the crawler passes as `stationId`. */
export const parseLiveReading = (r: LiveReading, context: ParseContext): RowOf<typeof tables.live_readings.columns> => ({
  captured_at: context.fetchedAt,
  station_id: context.params.stationId!,
  sensor_code: r.sensorCode,
  read_at: instantMs(r.readAt),
  value: r.value,
});
