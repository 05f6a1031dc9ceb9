import { z } from 'zod';
import type { EndpointSpec } from '../define.ts';
import { doc } from '../vocabulary/field.ts';
import * as param from '../vocabulary/param.ts';
import { text } from '../../core/text.ts';
import { bike, liveBike, liveZone, ride, season, zone } from './resources.ts';

const resolvable = text(
  'Not in the v1 spec: odsnap adds it so that every uri in the responses resolves to its resource.',
  'Nie ma go w specyfikacji v1: odsnap dodaje go, aby każdy uri w odpowiedziach prowadził do zasobu.',
);

export const endpoints: readonly EndpointSpec[] = [
  {
    path: '/bikes',
    summary: text('The bicycle inventory', 'Spis rowerów'),
    response: z.array(bike),
    answer: { kind: 'list', resource: 'bike' },
  },
  {
    path: '/bikes/{number}',
    summary: text('One bicycle of the inventory', 'Jeden rower ze spisu'),
    params: { number: param.text('Public bicycle number.', 'Publiczny numer roweru.', { required: true }) },
    response: bike,
    answer: { kind: 'item', resource: 'bike', param: 'number', match: ['number'] },
    extension: resolvable,
  },
  {
    path: '/zones',
    summary: text('Stored zones', 'Przechowywane strefy'),
    response: z.array(zone),
    answer: { kind: 'list', resource: 'zone' },
  },
  {
    path: '/zones/{zoneId}',
    summary: text('One stored zone', 'Jedna przechowywana strefa'),
    params: { zoneId: param.text('Zone identifier.', 'Identyfikator strefy.', { required: true }) },
    response: zone,
    answer: { kind: 'item', resource: 'zone', param: 'zoneId', match: ['id'] },
    extension: resolvable,
  },
  {
    path: '/seasons',
    summary: text('Yearly season statistics', 'Roczne statystyki sezonów'),
    response: z.array(season),
    answer: { kind: 'list', resource: 'season' },
  },
  {
    path: '/seasons/{year}',
    summary: text('Statistics of one season', 'Statystyki jednego sezonu'),
    params: { year: param.integer({ min: 1900, max: 9999 }, 'Year of the season.', 'Rok sezonu.', { required: true }) },
    response: season,
    answer: { kind: 'item', resource: 'season', param: 'year', match: ['year'] },
    extension: resolvable,
  },
  {
    path: '/rides',
    summary: text('Anonymised completed rides in a date range', 'Zanonimizowane zakończone przejazdy z zakresu dat'),
    response: z.object({
      data: doc(z.array(ride), 'Rides of this page, ordered by start.', 'Przejazdy tej strony, według początku.'),
      page: doc(z.number().int(), 'Applied page number.', 'Zastosowany numer strony.'),
      pageSize: doc(z.number().int(), 'Applied page size.', 'Zastosowany rozmiar strony.'),
      hasNextPage: doc(z.boolean(), 'Whether a further page holds rides.', 'Czy kolejna strona zawiera przejazdy.'),
    }),
    // Section 8: a rides range covers at most 366 days.
    answer: { kind: 'numbered-page', resource: 'ride', time: 'started_at', until: 'finished_at', maxDays: 366 },
  },
  {
    path: '/live',
    summary: text(
      'Current availability and locations of public bicycles, and public zones',
      'Bieżąca dostępność i położenie publicznych rowerów oraz publiczne strefy',
    ),
    response: z.object({
      bikes: doc(z.array(liveBike), 'Public bicycles on the live map.', 'Publiczne rowery na mapie na żywo.'),
      zones: doc(z.array(liveZone), 'Public zones on the live map.', 'Publiczne strefy na mapie na żywo.'),
    }),
    answer: {
      kind: 'custom',
      reads: ['liveBike', 'liveZone'],
      answer: async (query) => ({
        bikes: (await query.latest('liveBike')).map((row) => query.render('liveBike', row)),
        zones: (await query.latest('liveZone')).map((row) => query.render('liveZone', row)),
      }),
    },
  },
];
