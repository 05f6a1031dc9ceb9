import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import { historyStart, sampleContext, type RowSinks, type SampleSettings } from '../../datasets/vocabulary/sample.ts';
import { writeSnapshot, type WrittenSnapshot } from '../../core/snapshot/write.ts';

export interface GenerateSampleOptions {
  readonly dataDir: string;
  readonly datasets: readonly Dataset[];
  readonly settings: SampleSettings;
  /** A finished step worth a line. */
  readonly step?: (text: string) => void;
  /** Rows written so far, for a progress line. */
  readonly progress?: (text: string) => void;
}

/**
 * Generates the sample city into a data directory as one snapshot: every data set's generator
 * writes its tables, and the snapshot writer turns them into Parquet and publishes them.
 */
export async function generateSample(options: GenerateSampleOptions): Promise<WrittenSnapshot> {
  const { settings } = options;
  const start = historyStart[settings.scale];
  if (settings.until < start) throw new Error(`until must be ${start} or later: the ${settings.scale} city's history begins then`);
  const context = sampleContext(settings);
  return writeSnapshot(
    {
      dataDir: options.dataDir,
      datasets: options.datasets,
      source: { kind: 'sample', ...settings },
      createdAt: context.now,
      log: options.step,
    },
    async (tables) => {
      for (const dataset of options.datasets) {
        const started = Date.now();
        const writers = tables[dataset.name]!;
        const sinks = Object.fromEntries(
          Object.entries(writers).map(([name, writer]) => [
            name,
            {
              write(row: Record<string, unknown>) {
                writer.write(row);
                if (writer.rows % 50_000 === 0) options.progress?.(`${dataset.name}/${name} ${writer.rows.toLocaleString('en')} rows`);
              },
            },
          ]),
        );
        await dataset.sample(context, sinks as RowSinks<typeof dataset.tables>);
        const counts = Object.entries(writers)
          .map(([name, w]) => `${name} ${w.rows.toLocaleString('en')}`)
          .join(', ');
        options.step?.(`generated ${dataset.name} in ${((Date.now() - started) / 1000).toFixed(1)} s: ${counts}`);
      }
    },
  );
}
