import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defaultSeed, defaultUntil, type Scale } from '../datasets/core/sample.ts';
import { datasets } from '../datasets/index.ts';
import { generateSample } from '../scripts/sample/generate.ts';
import { dataLayout } from '../scripts/snapshot/layout.ts';

/** The city-scale sample benchmarks run on, generated once into .cache/ and reused. */
export const cityDataDir = () => sampleDataDir('city');

/** A sample at the given scale, generated once into .cache/bench/<scale> and reused. */
export async function sampleDataDir(scale: Scale): Promise<string> {
  const dataDir = join(process.cwd(), '.cache', 'bench', scale);
  if (existsSync(dataLayout(dataDir).current)) return dataDir;
  console.error(`generating the ${scale} sample once for benchmarks${scale === 'city' ? ' (2–3 minutes)' : ''}…`);
  await generateSample({
    dataDir,
    datasets,
    settings: { scale, seed: defaultSeed, until: defaultUntil },
    step: (text) => console.error(`  ${text}`),
  });
  return dataDir;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

export const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '–');
