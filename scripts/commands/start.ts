import { z } from 'zod';
import { datasets } from '../../datasets/index.ts';
import { defaultSeed, defaultUntil } from '../../datasets/core/sample.ts';
import { startServer } from '../../server/index.ts';
import { defineCommand } from '../cli/command.ts';
import { Progress } from '../cli/progress.ts';
import { generateSample } from '../sample/generate.ts';
import { currentSnapshotId, defaultDataDir } from '../snapshot/layout.ts';
import { untilStopped } from './serve.ts';

export const startCommand = defineCommand({
  name: 'start',
  summary: 'Set up everything on first run (the small sample city as a snapshot), then serve it.',
  description: 'What `npm start` runs. Later starts reuse the snapshot; --rebuild makes it again. Ctrl-C stops.',
  options: {
    data: { type: 'string', value: 'DIR', description: 'data directory (or ODSNAP_DATA)', default: defaultDataDir() },
    rebuild: { type: 'boolean', description: 'make the snapshot again even if one exists' },
    port: { type: 'string', value: 'PORT', description: 'port to serve on', default: '4321' },
  },
  schema: z.object({
    data: z.string().min(1),
    rebuild: z.boolean().optional(),
    port: z.string().regex(/^\d{1,5}$/, { error: 'must be a port number' }).transform(Number),
  }),
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
    const server = await startServer({
      dataDir: options.data,
      datasets,
      port: options.port,
      log: (line) => {
        if (line.level === 'error' || line.event) output.out(`${JSON.stringify(line)}\n`);
      },
    });
    const url = server.url.replace('127.0.0.1', 'localhost');
    const hints = [
      [`${url}/api/public`, 'every data set and endpoint'],
      [`${url}/api/public/rcn/transactions?limit=5`, 'the v1 API'],
      [`${url}/api/sql?q=SELECT+count(*)+FROM+citybike_rides`, 'read-only SQL'],
    ];
    const width = Math.max(...hints.map(([address]) => address!.length));
    output.out(
      [
        '',
        `odsnap is serving snapshot ${id} at ${url}`,
        ...hints.map(([address, what]) => `  ${address!.padEnd(width)}  ${what}`),
        '',
        'Also here: odsnap pull (crawl a v1 upstream) and odsnap build (the static tree); the site comes next. Ctrl-C stops.',
        '',
      ].join('\n'),
    );
    await untilStopped(server, output.err);
    return 0;
  },
});
