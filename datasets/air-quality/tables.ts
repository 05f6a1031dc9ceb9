import { column, nullable } from '../vocabulary/column.ts';
import { defineTable, listPosition } from '../vocabulary/table.ts';
import { text } from '../../core/text.ts';
import { historyReading, liveReading, liveStation, sensor, station } from './resources.ts';

const st = station.shape,
  se = sensor.shape,
  h = historyReading.shape,
  lr = liveReading.shape,
  ls = liveStation.shape;
const capturedAt = column.instant(text('When odsnap captured the live readings.', 'Kiedy odsnap zapisał odczyty na żywo.'));
const stationId = column.varchar(text('Station identifier.', 'Identyfikator stacji.'));

export const stations = defineTable({
  doc: text('Active, publicly available stations.', 'Aktywne, publicznie dostępne stacje.'),
  columns: {
    id: column.varchar(st.id),
    provider: column.varchar(st.provider),
    external_id: column.varchar(st.externalId),
    name: column.varchar(st.name),
    address: column.varchar(st.address),
    city: column.varchar(st.city),
    source: column.varchar(st.source),
    lat: column.double(text('Latitude, WGS 84.', 'Szerokość geograficzna, WGS 84.')),
    lon: column.double(text('Longitude, WGS 84.', 'Długość geograficzna, WGS 84.')),
    history_enabled: column.boolean(st.historyEnabled),
    list_position: listPosition,
  },
  key: ['id'],
  sortBy: ['list_position', 'id'],
});

export const sensors = defineTable({
  doc: text(
    'Sensor definitions with units, labels, display ranges and legends.',
    'Definicje czujników z jednostkami, etykietami, zakresami wyświetlania i legendami.',
  ),
  columns: {
    code: column.varchar(se.code),
    label: column.varchar(se.label),
    unit: column.varchar(se.unit),
    icon: column.varchar(se.icon),
    sort_order: column.integer(se.sortOrder),
    group_code: column.varchar(se.groupCode),
    group_order: column.integer(se.groupOrder),
    min_value: column.double(se.minValue),
    max_value: column.double(se.maxValue),
    fade_start_minutes: column.integer(se.fadeStartMinutes),
    max_age_minutes: column.integer(se.maxAgeMinutes),
    legend: column.structList<{ from: number; to: number; color: string; label: string }>(
      { from: 'DOUBLE', to: 'DOUBLE', color: 'VARCHAR', label: 'VARCHAR' },
      se.legend,
    ),
    list_position: listPosition,
  },
  key: ['code'],
  sortBy: ['list_position', 'sort_order', 'code'],
});

export const readings = defineTable({
  doc: text(
    'Hourly history per station and sensor, partitioned by station and UTC year.',
    'Historia godzinowa według stacji i czujnika, podzielona według stacji i roku (UTC).',
  ),
  columns: {
    station_id: stationId,
    sensor_code: column.varchar(text('Sensor code.', 'Kod czujnika.')),
    read_at: column.instant(h.readAt),
    value: column.double(h.value),
  },
  key: ['station_id', 'sensor_code', 'read_at'],
  partitionBy: [
    { name: 'station', column: 'station_id' },
    { name: 'year', column: 'read_at', part: 'year' },
  ],
  sortBy: ['sensor_code', 'read_at'],
  timeColumn: 'read_at',
});

export const live_stations = defineTable({
  doc: text('Captures of the live station list with each station’s error, if any.', 'Zapisy listy stacji na żywo wraz z błędem stacji, jeśli wystąpił.'),
  columns: { captured_at: capturedAt, station_id: stationId, error: nullable(column.json(ls.error)), list_position: listPosition },
  key: ['captured_at', 'station_id'],
  partitionBy: [
    { name: 'year', column: 'captured_at', part: 'year' },
    { name: 'month', column: 'captured_at', part: 'month' },
    { name: 'day', column: 'captured_at', part: 'day' },
  ],
  sortBy: ['captured_at', 'list_position', 'station_id'],
  timeColumn: 'captured_at',
  liveCaptures: true,
});

export const live_readings = defineTable({
  doc: text('Captures of the latest readings per station and sensor.', 'Zapisy najnowszych odczytów według stacji i czujnika.'),
  columns: {
    captured_at: capturedAt,
    station_id: stationId,
    sensor_code: column.varchar(lr.sensorCode),
    read_at: column.instant(lr.readAt),
    value: column.double(lr.value),
    list_position: listPosition,
  },
  key: ['captured_at', 'station_id', 'sensor_code'],
  partitionBy: [
    { name: 'year', column: 'captured_at', part: 'year' },
    { name: 'month', column: 'captured_at', part: 'month' },
    { name: 'day', column: 'captured_at', part: 'day' },
  ],
  sortBy: ['captured_at', 'station_id', 'list_position', 'sensor_code'],
  timeColumn: 'captured_at',
  liveCaptures: true,
});
