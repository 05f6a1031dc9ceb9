import { column, nullable } from '../vocabulary/column.ts';
import { defineTable, listPosition } from '../vocabulary/table.ts';
import { text } from '../../core/text.ts';
import { counter, counterReading } from './resources.ts';

const c = counter.shape,
  r = counterReading.shape;

export const counters = defineTable({
  doc: text('Counters with location and operating range.', 'Liczniki z położeniem i okresem działania.'),
  columns: {
    id: column.varchar(c.id),
    name: column.varchar(c.name),
    provider: column.varchar(c.provider),
    external_id: nullable(column.varchar(c.externalId)),
    lat: column.double(text('Latitude, WGS 84.', 'Szerokość geograficzna, WGS 84.')),
    lon: column.double(text('Longitude, WGS 84.', 'Długość geograficzna, WGS 84.')),
    active_from: column.instant(c.activeFrom),
    active_to: nullable(column.instant(c.activeTo)),
    last_synchronized_at: column.instant(c.lastSynchronizedAt),
    list_position: listPosition,
  },
  key: ['id'],
  sortBy: ['list_position', 'id'],
});

export const readings = defineTable({
  doc: text(
    'Hourly counts, partitioned by counter and UTC year, in time order.',
    'Godzinowe zliczenia, podzielone według licznika i roku (UTC), w kolejności czasu.',
  ),
  columns: {
    counter_id: column.varchar(text('Counter identifier.', 'Identyfikator licznika.')),
    read_at: column.instant(r.readAt),
    value: column.integer(r.value),
  },
  key: ['counter_id', 'read_at'],
  partitionBy: [
    { name: 'counter', column: 'counter_id' },
    { name: 'year', column: 'read_at', part: 'year' },
  ],
  sortBy: ['read_at'],
  timeColumn: 'read_at',
});
