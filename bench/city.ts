import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defaultSeed, defaultUntil, type SampleSettings, type Scale } from '../datasets/vocabulary/sample.ts';
import { datasets } from '../datasets/index.ts';
import { generateSample } from '../scripts/sample/generate.ts';
import { dataLayout } from '../core/snapshot/layout.ts';
import { openSnapshot, shapeMismatch } from '../core/snapshot/read.ts';

/** The city-scale sample benchmarks run on, generated once into .cache/ and reused. */
export const cityDataDir = () => sampleDataDir('city');

/** A sample at the given scale, generated once into .cache/bench/<scale> and reused. */
export const sampleDataDir = (scale: Scale) => generatedOnce(join(process.cwd(), '.cache', 'bench', scale), { scale, seed: defaultSeed, until: defaultUntil });

/**
 * A sample generated into `dataDir` unless its current snapshot is one already, with the tables
 * this code declares (an older odsnap's is generated again).
 */
export async function generatedOnce(dataDir: string, settings: SampleSettings): Promise<string> {
  if (existsSync(dataLayout(dataDir).current) && !shapeMismatch(await openSnapshot(dataDir), datasets)) return dataDir;
  console.error(
    `generating the ${settings.scale} sample (until ${settings.until}) for benchmarks${settings.scale === 'city' ? ' (2–3 minutes)' : settings.scale === 'region' ? ' (about 10 minutes)' : ''}…`,
  );
  await generateSample({ dataDir, datasets, settings, step: (text) => console.error(`  ${text}`) });
  return dataDir;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** The middle value (of an even count, the higher of the two middle ones). */
export const median = (values: readonly number[]) => percentile(values, 50);

/** The median and the range of some figures, such as a ratio taken in each round of a run. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}
export const spread = (values: readonly number[]): Spread => ({ median: median(values), min: Math.min(...values), max: Math.max(...values) });

export const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '–');
