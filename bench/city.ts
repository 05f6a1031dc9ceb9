import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defaultSeed, defaultUntil } from '../datasets/core/sample.ts';
import { datasets } from '../datasets/index.ts';
import { generateSample } from '../scripts/sample/generate.ts';
import { dataLayout } from '../scripts/snapshot/layout.ts';

/** The city-scale sample benchmarks run on, generated once into .cache/ and reused. */
export async function cityDataDir(): Promise<string> {
  const dataDir = join(process.cwd(), '.cache', 'bench', 'city');
  if (existsSync(dataLayout(dataDir).current)) return dataDir;
  console.error('generating the city sample once for benchmarks (2–3 minutes)…');
  await generateSample({
    dataDir,
    datasets,
    settings: { scale: 'city', seed: defaultSeed, until: defaultUntil },
    step: (text) => console.error(`  ${text}`),
  });
  return dataDir;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

export const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '–');
