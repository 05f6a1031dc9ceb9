import { z } from 'zod';
import { notFound } from '../../core/problem.ts';
import type { Query } from '../answers/index.ts';
import type { EndpointSpec } from '../define.ts';
import { doc } from '../vocabulary/field.ts';
import * as param from '../vocabulary/param.ts';
import { text } from '../../core/text.ts';
import { historyReading, liveReading, liveStation, sensor, station } from './resources.ts';

const resolvable = text(
  'Not in the v1 spec: odsnap adds it so that every uri and sensorUri resolves to its resource.',
  'Nie ma go w specyfikacji v1: odsnap dodaje go, aby każdy uri i sensorUri prowadził do zasobu.',
);
const stationId = param.text(
  'Station identifier: the id of a station from the stations endpoint. odsnap also accepts the station’s externalId, since no id equals another station’s externalId.',
  'Identyfikator stacji: id stacji z punktu stations. odsnap przyjmuje też externalId stacji, ponieważ żadne id nie jest równe externalId innej stacji.',
  { required: true },
);

/** Latest readings per station, each entry with its own readings. */
async function liveStations(query: Query) {
  const readings = new Map<unknown, unknown[]>();
  for (const row of await query.latest('liveReading')) {
    readings.set(row.station_id, [...(readings.get(row.station_id) ?? []), query.render('liveReading', row)]);
  }
  return {
    stations: (await query.latest('liveStation')).map((row) => ({
      ...query.value('liveStation', row),
      readings: readings.get(row.station_id) ?? [],
    })),
  };
}

/** Latest readings of the station whose external id is the device id. */
async function liveDevice(query: Query, params: Readonly<Record<string, unknown>>) {
  const [station] = await query.rows('station', { external_id: params.deviceId as string });
  if (!station) throw notFound(`no station has the external device id ${params.deviceId}`, 'deviceId');
  return { readings: (await query.latest('liveReading', { station_id: station.id as string })).map((row) => query.render('liveReading', row)) };
}

export const endpoints: readonly EndpointSpec[] = [
  {
    path: '/stations',
    summary: text('Active, publicly available stations', 'Aktywne, publicznie dostępne stacje'),
    response: z.array(station),
    answer: { kind: 'list', resource: 'station' },
  },
  {
    path: '/stations/{stationId}',
    summary: text('One station', 'Jedna stacja'),
    params: { stationId },
    response: station,
    answer: { kind: 'item', resource: 'station', param: 'stationId', match: ['id', 'external_id'] },
    extension: resolvable,
  },
  {
    path: '/sensors',
    summary: text('Sensor definitions', 'Definicje czujników'),
    response: z.array(sensor),
    answer: { kind: 'list', resource: 'sensor' },
  },
  {
    path: '/sensors/{sensorCode}',
    summary: text('One sensor definition', 'Jedna definicja czujnika'),
    params: { sensorCode: param.text('Sensor code.', 'Kod czujnika.', { required: true }) },
    response: sensor,
    answer: { kind: 'item', resource: 'sensor', param: 'sensorCode', match: ['code'] },
    extension: resolvable,
  },
  {
    path: '/history/{stationId}/{sensorCode}',
    summary: text('Hourly history of one sensor at one station in a date range', 'Historia godzinowa jednego czujnika na jednej stacji z zakresu dat'),
    params: {
      stationId,
      sensorCode: param.text('Sensor code from the sensors endpoint.', 'Kod czujnika z punktu sensors.', { required: true }),
    },
    response: z.object({
      readings: doc(
        z.array(historyReading),
        'Hourly readings in the range, oldest first; hours without data are absent.',
        'Godzinowe odczyty z zakresu, od najstarszego; godzin bez danych brak.',
      ),
    }),
    answer: {
      kind: 'series',
      resource: 'reading',
      parents: [
        { param: 'stationId', resource: 'station', match: ['id', 'external_id'], key: 'id', column: 'station_id' },
        { param: 'sensorCode', resource: 'sensor', match: ['code'], key: 'code', column: 'sensor_code' },
      ],
      time: 'read_at',
      envelope: (readings) => ({ readings }),
    },
  },
  {
    path: '/live',
    summary: text('Latest readings for all active stations', 'Najnowsze odczyty wszystkich aktywnych stacji'),
    response: z.object({ stations: doc(z.array(liveStation), 'One entry per active station.', 'Jeden wpis na aktywną stację.') }),
    answer: { kind: 'custom', reads: ['liveStation', 'liveReading'], answer: liveStations },
  },
  {
    path: '/live/{deviceId}',
    summary: text('Latest readings for one source device', 'Najnowsze odczyty jednego urządzenia źródłowego'),
    params: {
      deviceId: param.text(
        'External identifier of the measurement device (a station’s externalId).',
        'Zewnętrzny identyfikator urządzenia pomiarowego (externalId stacji).',
        { required: true },
      ),
    },
    response: z.object({
      readings: doc(z.array(liveReading), 'Latest readings of the device, one per sensor.', 'Najnowsze odczyty urządzenia, po jednym na czujnik.'),
    }),
    answer: { kind: 'custom', reads: ['station', 'liveReading'], answer: liveDevice, each: { deviceId: { resource: 'station', column: 'external_id' } } },
  },
];
