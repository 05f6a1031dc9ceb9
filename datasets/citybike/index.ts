import { defineDataset } from '../define.ts';
import { defineResource } from '../vocabulary/resource.ts';
import { text } from '../../core/text.ts';
import { endpoints } from './endpoints.ts';
import { renderBike, renderLiveBike, renderLiveZone, renderRide, renderSeason, renderZone } from './render.ts';
import { bike, liveBike, liveZone, ride, season, zone } from './resources.ts';
import { parseBike, parseLiveBike, parseLiveZone, parseRide, parseSeason, parseZone } from './parse.ts';
import { generate } from './sample.ts';
import { live } from './sample-live.ts';
import * as tables from './tables.ts';
import { charts, map } from './figures.ts';
import { gbfs } from './gbfs.ts';

export const citybike = defineDataset({
  name: 'citybike',
  module: import.meta.url,
  title: text('City bike share', 'Rower miejski'),
  description: text(
    'The stored inventory of bicycles and zones, yearly season statistics, anonymised completed rides, and captures of the live map of public bicycles and zones.',
    'Przechowywany spis rowerów i stref, roczne statystyki sezonów, zanonimizowane zakończone przejazdy oraz zapisy mapy na żywo publicznych rowerów i stref.',
  ),
  keywords: {
    en: ['bike sharing', 'cycling', 'rides', 'mobility', 'public transport'],
    pl: ['rower miejski', 'rowery', 'przejazdy', 'mobilność', 'transport publiczny'],
  },
  themes: ['TRAN'],
  tables,
  resources: {
    bike: defineResource(tables.bikes, bike, renderBike, { parse: parseBike }),
    zone: defineResource(tables.zones, zone, renderZone, { parse: parseZone }),
    season: defineResource(tables.seasons, season, renderSeason, { parse: parseSeason }),
    ride: defineResource(tables.rides, ride, renderRide, { parse: parseRide }),
    liveBike: defineResource(tables.live_bikes, liveBike, renderLiveBike, { parse: parseLiveBike }),
    liveZone: defineResource(tables.live_zones, liveZone, renderLiveZone, { parse: parseLiveZone }),
  },
  endpoints,
  // Rides are asked per season, a week at a time: small windows keep a window's pages in memory
  // cheap while costing only one short last page each.
  crawl: [
    { path: '/bikes' },
    { path: '/zones' },
    { path: '/seasons' },
    { path: '/rides', over: { resource: 'season', from: 'active_from', to: 'active_to' }, days: 7 },
    {
      path: '/live',
      parts: [
        { field: 'bikes', resource: 'liveBike' },
        { field: 'zones', resource: 'liveZone' },
      ],
    },
  ],
  sample: generate,
  liveSample: live,
  charts,
  map,
  feeds: [gbfs],
});
