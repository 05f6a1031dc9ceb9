import { z } from 'zod';
import type { EndpointSpec } from '../core/endpoint.ts';
import { doc } from '../core/field.ts';
import * as param from '../core/param.ts';
import { text } from '../core/text.ts';
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

const range = param.dayRange();

export const endpoints: readonly EndpointSpec[] = [
  {
    path: '/stations',
    summary: text('Active, publicly available stations', 'Aktywne, publicznie dostępne stacje'),
    response: z.array(station),
  },
  {
    path: '/stations/{stationId}',
    summary: text('One station', 'Jedna stacja'),
    params: { stationId },
    response: station,
    extension: resolvable,
  },
  {
    path: '/sensors',
    summary: text('Sensor definitions', 'Definicje czujników'),
    response: z.array(sensor),
  },
  {
    path: '/sensors/{sensorCode}',
    summary: text('One sensor definition', 'Jedna definicja czujnika'),
    params: { sensorCode: param.text('Sensor code.', 'Kod czujnika.', { required: true }) },
    response: sensor,
    extension: resolvable,
  },
  {
    path: '/history/{stationId}/{sensorCode}',
    summary: text('Hourly history of one sensor at one station in a date range', 'Historia godzinowa jednego czujnika na jednej stacji z zakresu dat'),
    params: {
      stationId,
      sensorCode: param.text('Sensor code from the sensors endpoint.', 'Kod czujnika z punktu sensors.', { required: true }),
      ...range.params,
    },
    rules: range.rules,
    response: z.object({ readings: doc(z.array(historyReading), 'Hourly readings in the range, oldest first; hours without data are absent.', 'Godzinowe odczyty z zakresu, od najstarszego; godzin bez danych brak.') }),
  },
  {
    path: '/live',
    summary: text('Latest readings for all active stations', 'Najnowsze odczyty wszystkich aktywnych stacji'),
    response: z.object({ stations: doc(z.array(liveStation), 'One entry per active station.', 'Jeden wpis na aktywną stację.') }),
  },
  {
    path: '/live/{deviceId}',
    summary: text('Latest readings for one source device', 'Najnowsze odczyty jednego urządzenia źródłowego'),
    params: { deviceId: param.text('External identifier of the measurement device (a station’s externalId).', 'Zewnętrzny identyfikator urządzenia pomiarowego (externalId stacji).', { required: true }) },
    response: z.object({ readings: doc(z.array(liveReading), 'Latest readings of the device, one per sensor.', 'Najnowsze odczyty urządzenia, po jednym na czujnik.') }),
  },
];
