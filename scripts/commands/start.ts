import { z } from 'zod';
import { datasets } from '../../datasets/index.ts';
import { defaultSeed, defaultUntil } from '../../datasets/core/sample.ts';
import { defineCommand } from '../cli/command.ts';
import { Progress } from '../cli/progress.ts';
import { generateSample } from '../sample/generate.ts';
import { currentSnapshotId, defaultDataDir } from '../snapshot/layout.ts';

export const startCommand = defineCommand({
  name: 'start',
  summary: 'Set up everything on first run (the small sample city as a snapshot), then say what is available.',
  description: 'What `npm start` runs. Later starts reuse the snapshot; --rebuild makes it again.',
  options: {
    data: { type: 'string', value: 'DIR', description: 'data directory (or ODSNAP_DATA)', default: defaultDataDir() },
    rebuild: { type: 'boolean', description: 'make the snapshot again even if one exists' },
  },
  schema: z.object({ data: z.string().min(1), rebuild: z.boolean().optional() }),
  async run(options, output) {
    const progress = new Progress(output);
    let id = options.rebuild ? undefined : await currentSnapshotId(options.data);
    if (id) progress.step(`using snapshot ${id} in ${options.data}`);
    else {
      progress.step(`first start: generating the small sample city into ${options.data} (about a minute)`);
      const snapshot = await generateSample({
        dataDir: options.data,
        datasets,
        settings: { scale: 'small', seed: defaultSeed, until: defaultUntil },
        step: (text) => progress.step(text),
        progress: (text) => progress.update(text),
      });
      id = snapshot.id;
    }
    const hints = [
      [`npx odsnap verify --data ${options.data}`, 're-check every file against the manifest'],
      ['npx odsnap --help', 'every command'],
    ];
    const width = Math.max(...hints.map(([command]) => command!.length));
    output.out(
      [
        '',
        `Snapshot ${id} is ready in ${options.data}/current.`,
        'Try:',
        ...hints.map(([command, what]) => `  ${command!.padEnd(width)}  ${what}`),
        '',
        'Coming next in odsnap: serve (the v1 API and SQL over this snapshot), pull, the static build and the site.',
        '',
      ].join('\n'),
    );
    return 0;
  },
});
