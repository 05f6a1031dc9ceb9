import { z } from 'zod';
import { datasets } from '../datasets/index.ts';
import { defaultSeed, defaultUntil, scales } from '../datasets/vocabulary/sample.ts';
import { dataDirOption, defineCommand, UsageError } from './command.ts';
import { DEFAULT_SPEED, serveMovingCity } from './moving-city.ts';
import { formatBytes, Progress } from '../core/progress.ts';

export const sampleCommand = defineCommand({
  name: 'sample',
  summary: 'Generate the sample city: a deterministic, synthetic snapshot of all four data sets.',
  description:
    'Writes one snapshot in the odsnap format and makes it current, so verify and serve work on the directory at once.\n' +
    'The same arguments always give byte-identical Parquet files; a later --until adds days and leaves earlier ones as they were.\n' +
    'With --serve, the city becomes an upstream whose time moves: generated (or reused) in --out, served through the v1\n' +
    'interface on --port, its live endpoints answering the minute of its clock, its registers a day older at each of the\n' +
    "clock's midnights (Europe/Warsaw). The clock is ODSNAP_CLOCK's, else it starts at the end of --until and runs --speed\n" +
    'times as fast as the wall. It prints ODSNAP_CLOCK=… and ODSNAP_UPSTREAM=…: a mirror given that clock and that address\n' +
    'lives the same time. Ctrl-C stops.',
  options: {
    out: { ...dataDirOption('create', 'to write into'), check: z.string().min(1, { error: 'needs a directory' }) },
    scale: {
      type: 'string',
      value: 'SCALE',
      description: `${scales.join(' | ')}: tests, demo, benchmarks, the cost curve (region: the city four times over, about half an hour)`,
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
    serve: { type: 'boolean', description: 'serve the city as an upstream whose time moves (live minute by minute, registers day by day)' },
    port: {
      type: 'string',
      value: 'PORT',
      description: 'with --serve: port to serve on (default: a free one, printed)',
      check: z
        .string()
        .regex(/^\d{1,5}$/, { error: 'must be a port number' })
        .transform(Number)
        .pipe(z.number().max(65_535, { error: 'must be a port number' }))
        .optional(),
    },
    speed: {
      type: 'string',
      value: 'N',
      description: `with --serve: how many times as fast as the wall the city's clock runs (default ${DEFAULT_SPEED}, a minute a second)`,
      check: z
        .string()
        .regex(/^\d+(\.\d+)?$/, { error: 'must be a number above 0, e.g. 60 (a minute a second)' })
        .transform(Number)
        .pipe(z.number().positive({ error: 'must be a number above 0, e.g. 60 (a minute a second)' }).max(1_000_000, { error: 'must be at most 1000000' }))
        .optional(),
    },
  },
  async run(options, output) {
    const stray = (['port', 'speed'] as const).find((name) => options[name] !== undefined && !options.serve);
    if (stray) throw new UsageError(`--${stray} is for --serve: give --serve too, or leave --${stray} out`);
    const settings = { scale: options.scale, seed: options.seed, until: options.until };
    if (options.serve) return serveMovingCity({ out: options.out, settings, port: options.port ?? 0, speed: options.speed }, output);
    const progress = new Progress(output);
    progress.step(`generating the ${options.scale} sample city (seed ${options.seed}, until ${options.until}) into ${options.out}`);
    const { generateSample } = await import('../scripts/sample/generate.ts');
    const snapshot = await generateSample({
      dataDir: options.out,
      datasets,
      settings,
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
