import type { RowOf } from '../../core/table.ts';
import { apiPrefix } from '../vocabulary/dataset.ts';
import type { RenderContext } from '../vocabulary/render.ts';
import type { HistoryReading, LiveReading, LiveStation, Sensor, Station } from './resources.ts';
import type * as tables from './tables.ts';

export const prefix = apiPrefix('air-quality');

export const stationPath = (id: string) => `${prefix}/stations/${encodeURIComponent(id)}`;
export const sensorPath = (code: string) => `${prefix}/sensors/${encodeURIComponent(code)}`;

export const renderStation = (row: RowOf<typeof tables.stations.columns>, context: RenderContext): Station => ({
  uri: context.link(stationPath(row.id)),
  id: row.id,
  provider: row.provider,
  externalId: row.external_id,
  name: row.name,
  address: row.address,
  city: row.city,
  source: row.source,
  location: { lat: row.lat, lon: row.lon },
  historyEnabled: row.history_enabled,
});

export const renderSensor = (row: RowOf<typeof tables.sensors.columns>, context: RenderContext): Sensor => ({
  uri: context.link(sensorPath(row.code)),
  code: row.code,
  label: row.label,
  unit: row.unit,
  icon: row.icon,
  sortOrder: row.sort_order,
  groupCode: row.group_code,
  groupOrder: row.group_order,
  minValue: row.min_value,
  maxValue: row.max_value,
  fadeStartMinutes: row.fade_start_minutes,
  maxAgeMinutes: row.max_age_minutes,
  legend: row.legend,
});

export const renderHistoryReading = (row: RowOf<typeof tables.readings.columns>, context: RenderContext): HistoryReading => ({
  readAt: context.time(row.read_at),
  value: row.value,
});

export const renderLiveReading = (row: RowOf<typeof tables.live_readings.columns>, context: RenderContext): LiveReading => ({
  readAt: context.time(row.read_at),
  value: row.value,
  sensorUri: context.link(sensorPath(row.sensor_code)),
  sensorCode: row.sensor_code,
});

/** A live station entry; its readings come from another table, and the live answer fills them in. */
export const renderLiveStation = (row: RowOf<typeof tables.live_stations.columns>, context: RenderContext): LiveStation => ({
  uri: context.link(stationPath(row.station_id)),
  stationId: row.station_id,
  readings: [],
  error: row.error ?? null,
});
