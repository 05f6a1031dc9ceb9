import { defineDataset } from '../define.ts';
import { defineResource } from '../vocabulary/resource.ts';
import { text } from '../../core/text.ts';
import { endpoints } from './endpoints.ts';
import { renderCounter, renderReading } from './render.ts';
import { counter, counterReading } from './resources.ts';
import { parseCounter, parseReading } from './parse.ts';
import { generate } from './sample.ts';
import * as tables from './tables.ts';
import { charts, map } from './figures.ts';

export const bikeCounter = defineDataset({
  name: 'bike-counter',
  module: import.meta.url,
  title: text('Bicycle traffic counters', 'Liczniki ruchu rowerowego'),
  description: text(
    'Counters with location and operating range, and hourly historical readings per counter.',
    'Liczniki z położeniem i okresem działania oraz godzinowe odczyty historyczne każdego licznika.',
  ),
  keywords: { en: ['cycling', 'bicycle counters', 'traffic counts', 'mobility'], pl: ['ruch rowerowy', 'liczniki rowerowe', 'natężenie ruchu', 'mobilność'] },
  themes: ['TRAN'],
  tables,
  resources: {
    counter: defineResource(tables.counters, counter, renderCounter, { parse: parseCounter }),
    reading: defineResource(tables.readings, counterReading, renderReading, { parse: parseReading }),
  },
  endpoints,
  // A quarter of hourly readings is about 2,200 per answer.
  crawl: [{ path: '/counters' }, { path: '/counters/{counterId}/readings', field: 'readings', span: { from: 'active_from', to: 'active_to' }, days: 92 }],
  sample: generate,
  charts,
  map,
});
