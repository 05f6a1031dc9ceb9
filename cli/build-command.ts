import { cacheDirOption, dataDirOption, defineCommand, publishingOf, publishingOptions, tilesOption } from './command.ts';
import { counted, formatBytes, formatCount, Progress } from '../core/progress.ts';
import { canBuildSite } from '../scripts/static/site.ts';

export const buildCommand = defineCommand({
  name: 'build',
  summary: 'Write the static tree: every v1 endpoint as JSON files, plus the Parquet downloads, for any static host.',
  description:
    'Starts at /api/public/index.json; every file answers one v1 request, with links into the tree. JSON files get .gz\n' +
    'and .br beside them; nginx.conf and _headers say how to serve them. A rebuild renders only files whose rows\n' +
    'changed and writes only new content: OUT is a symlink to one of two trees, and the one not in use is updated\n' +
    'and then swapped in, so readers never see a half-built tree. The site (bilingual docs, data-set pages,\n' +
    "charts, downloads) is built into the same tree, its examples linking to the tree's files. One build at a time\n" +
    'writes OUT: another exits at once with code 2, naming the process that holds it.',
  options: {
    data: dataDirOption('read', 'whose current snapshot to publish'),
    'cache-dir': cacheDirOption,
    out: { type: 'string', value: 'DIR', description: 'where the tree goes (a symlink odsnap manages)', default: 'dist' },
    full: { type: 'boolean', description: 'render every file again, trusting nothing of the tree in use' },
    'no-site': { type: 'boolean', description: 'leave out the site (docs, data-set pages, query page); only the v1 tree and downloads' },
    ...publishingOptions,
    tiles: tilesOption,
  },
  async run(options, output) {
    const [{ buildStaticForCommand }, { OUTPUT_LOCKED }] = await Promise.all([
      import('../scripts/static/build-on-thread.ts'),
      import('../scripts/static/build-lock.ts'),
    ]);
    const progress = new Progress(output);
    progress.step(`building the static tree of ${options.data} into ${options.out}`);
    // Another build holds OUT: said at once rather than waited for (it may take many minutes, and
    // would publish the same snapshot), with its own exit code so that a script can tell busy from failed.
    const locked = (error: NodeJS.ErrnoException) => {
      if (error.code !== OUTPUT_LOCKED) throw error;
      output.err(`odsnap build: ${error.message}\n`);
      return undefined;
    };
    const result = await buildStaticForCommand({
      dataDir: options.data,
      out: options.out,
      full: options.full,
      site: !options['no-site'] && canBuildSite(),
      tiles: options.tiles,
      ...publishingOf(options),
      onProgress: ({ endpoint, files }) => progress.update(() => `${endpoint}: ${counted(files, 'file')}`),
      onStep: (text) => progress.step(text),
    }).catch(locked);
    if (!result) return 2;
    progress.step(
      `${options.out} -> ${result.tree}: snapshot ${result.snapshot}, ${formatCount(result.files)} files; ` +
        `${formatCount(result.carried)} carried over unrendered, ${formatCount(result.reenveloped)} pages with a new total, ${formatCount(result.extended)} with rows added; ${formatCount(result.written)} written (${formatBytes(result.bytes)}), ${formatCount(result.linked)} linked, ${formatCount(result.deleted)} deleted, in ${result.seconds.toFixed(1)} s`,
    );
    for (const warning of result.warnings) output.err(`odsnap build: warning: ${warning}\n`);
    for (const note of result.notes) output.err(`odsnap build: ${note}\n`);
    return 0;
  },
});
