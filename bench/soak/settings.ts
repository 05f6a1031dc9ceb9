import { scales, type Scale } from '../../datasets/vocabulary/sample.ts';

/**
 * The soak's settings: the sample's scale (SOAK_SCALE, city by default; region to see the server
 * hold its memory as the data grows), how long it runs (SOAK_SECONDS, SOAK_IDLE_SECONDS shorten
 * it for a try), its connections and ports.
 */
export const SCALE = soakScale(process.env.SOAK_SCALE);
export const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
export const IDLE_SECONDS = Number(process.env.SOAK_IDLE_SECONDS ?? 120);
export const V1_CONNECTIONS = 12;
export const SQL_CONNECTIONS = 4;
export const PORT = 4395;
export const BARE_PORT = 4396;

function soakScale(value = 'city'): Scale {
  if ((scales as readonly string[]).includes(value)) return value as Scale;
  throw new Error(`SOAK_SCALE must be one of ${scales.join(', ')}, not ${JSON.stringify(value)}`);
}
