import { airQuality } from './air-quality/index.ts';
import { bikeCounter } from './bike-counter/index.ts';
import { citybike } from './citybike/index.ts';
import type { Dataset } from './vocabulary/dataset.ts';
import { rcn } from './rcn/index.ts';

/** The data sets of the v1 service, in the order of its spec. Engines loop over this list. */
export const datasets: readonly Dataset[] = [rcn, citybike, bikeCounter, airQuality];

export type { Dataset };
