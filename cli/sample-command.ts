import { z } from 'zod';
import { datasets } from '../datasets/index.ts';
import { defaultSeed, defaultUntil, scales } from '../datasets/vocabulary/sample.ts';
import { dataDirOption, defineCommand } from './command.ts';
import { formatBytes, Progress } from '../core/progress.ts';

export const sampleCommand = defineCommand({
  name: 'sample',
  summary: 'Generate the sample city: a deterministic, synthetic snapshot of all four data sets.',
  description:
    'Writes one snapshot in the odsnap format and makes it current, so verify and serve work on the directory at once.\n' +
    'The same arguments always give byte-identical Parquet files; a later --until adds days and leaves earlier ones as they were.',
  options: {
    out: { ...dataDirOption('create', 'to write into'), check: z.string().min(1, { error: 'needs a directory' }) },
    scale: {
      type: 'string',
      value: 'SCALE',
      description: `${scales.join(' | ')}: tests, demo, benchmarks`,
      default: 'small',
      check: z.enum(scales, { error: `must be one of ${scales.join(', ')}` }),
    },
    seed: {
      type: 'string',
      value: 'N',
      description: 'random seed, a whole number',
      default: String(defaultSeed),
      check: z
        .string()
        .regex(/^\d{1,9}$/, { error: 'must be a whole number' })
        .transform(Number),
    },
    until: {
      type: 'string',
      value: 'YYYY-MM-DD',
      description: 'the sample\'s "today": the last day with data',
      default: defaultUntil,
      check: z.iso.date({ error: 'must be a date, YYYY-MM-DD' }),
    },
  },
  async run(options, output) {
    const progress = new Progress(output);
    progress.step(`generating the ${options.scale} sample city (seed ${options.seed}, until ${options.until}) into ${options.out}`);
    const { generateSample } = await import('../scripts/sample/generate.ts');
    const snapshot = await generateSample({
      dataDir: options.out,
      datasets,
      settings: { scale: options.scale, seed: options.seed, until: options.until },
      step: (text) => progress.step(text),
      progress: (text) => progress.update(text),
    });
    const tables = Object.values(snapshot.manifest.datasets).flatMap((d) => Object.values(d.tables));
    const files = tables.flatMap((t) => t.files);
    progress.step(
      `snapshot ${snapshot.id} is current: ${tables.reduce((n, t) => n + t.rows, 0).toLocaleString('en')} rows in ${files.length} files, ` +
        `${formatBytes(files.reduce((n, f) => n + f.bytes, 0))}`,
    );
    output.out(`${snapshot.dir}\n`);
    return 0;
  },
});
