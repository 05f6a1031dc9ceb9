import { defineDataset } from '../define.ts';
import { defineResource } from '../vocabulary/resource.ts';
import { text } from '../../core/text.ts';
import { endpoints } from './endpoints.ts';
import { renderHistoryReading, renderLiveReading, renderLiveStation, renderSensor, renderStation } from './render.ts';
import { historyReading, liveReading, liveStation, sensor, station } from './resources.ts';
import { parseHistoryReading, parseLiveReading, parseLiveStation, parseSensor, parseStation } from './parse.ts';
import { generate, live } from './sample.ts';
import * as tables from './tables.ts';
import { charts, map } from './figures.ts';

export const airQuality = defineDataset({
  name: 'air-quality',
  module: import.meta.url,
  title: text('Air quality', 'Jakość powietrza'),
  description: text(
    'Active stations, sensor definitions (units, labels, display ranges), hourly history per station and sensor, and captures of the latest readings.',
    'Aktywne stacje, definicje czujników (jednostki, etykiety, zakresy wyświetlania), historia godzinowa według stacji i czujnika oraz zapisy najnowszych odczytów.',
  ),
  keywords: {
    en: ['air quality', 'air pollution', 'particulate matter', 'PM10', 'PM2.5'],
    pl: ['jakość powietrza', 'zanieczyszczenie powietrza', 'pyły zawieszone', 'PM10', 'PM2,5'],
  },
  themes: ['ENVI', 'HEAL'],
  tables,
  resources: {
    station: defineResource(tables.stations, station, renderStation, { parse: parseStation }),
    sensor: defineResource(tables.sensors, sensor, renderSensor, { parse: parseSensor }),
    reading: defineResource(tables.readings, historyReading, renderHistoryReading, { parse: parseHistoryReading }),
    liveStation: defineResource(tables.live_stations, liveStation, renderLiveStation, { parse: parseLiveStation }),
    liveReading: defineResource(tables.live_readings, liveReading, renderLiveReading, { parse: parseLiveReading }),
  },
  endpoints,
  // Stations do not say since when they measure, so history is walked back from today, a year
  // (about 8,800 hourly readings) per answer.
  crawl: [
    { path: '/stations' },
    { path: '/sensors' },
    { path: '/history/{stationId}/{sensorCode}', field: 'readings', days: 366, where: { stationId: { history_enabled: true } } },
    {
      path: '/live',
      parts: [
        { field: 'stations', resource: 'liveStation', children: [{ field: 'readings', resource: 'liveReading', param: 'stationId', from: 'stationId' }] },
      ],
    },
    // `live` holds every device's readings: one device's answer is asked only for what its envelope holds.
    { path: '/live/{deviceId}' },
  ],
  sample: generate,
  liveSample: live,
  charts,
  map,
});
