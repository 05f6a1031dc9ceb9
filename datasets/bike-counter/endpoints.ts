import { z } from 'zod';
import type { EndpointSpec } from '../define.ts';
import * as param from '../vocabulary/param.ts';
import { text } from '../../core/text.ts';
import { renderReadings } from './render.ts';
import { counter, type counterReading, counterReadings } from './resources.ts';

const counterId = param.text('Counter identifier (the id of a Counter).', 'Identyfikator licznika (id obiektu Counter).', { required: true });

export const endpoints: readonly EndpointSpec[] = [
  {
    path: '/counters',
    summary: text('Counters with location, provider and operating range', 'Liczniki z położeniem, operatorem i okresem działania'),
    response: z.array(counter),
    answer: { kind: 'list', resource: 'counter' },
  },
  {
    path: '/counters/{counterId}',
    summary: text('One counter', 'Jeden licznik'),
    params: { counterId },
    response: counter,
    answer: { kind: 'item', resource: 'counter', param: 'counterId', match: ['id'] },
    extension: text(
      'Not in the v1 spec: odsnap adds it so that uri and counterUri resolve to the counter.',
      'Nie ma go w specyfikacji v1: odsnap dodaje go, aby uri i counterUri prowadziły do licznika.',
    ),
  },
  {
    path: '/counters/{counterId}/readings',
    summary: text('Hourly readings of one counter in a date range', 'Godzinowe odczyty jednego licznika z zakresu dat'),
    params: { counterId },
    response: counterReadings,
    answer: {
      kind: 'series',
      resource: 'reading',
      parents: [{ param: 'counterId', resource: 'counter', match: ['id'], key: 'id', column: 'counter_id' }],
      time: 'read_at',
      envelope: (readings, params, context) =>
        renderReadings(
          params.counterId as string,
          { from: params.from as string, to: params.to as string },
          readings as z.infer<typeof counterReading>[],
          context,
        ),
    },
  },
];
