import { execFile, spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { commands } from '../../cli/main.ts';
import { portOption } from '../../cli/serve-command.ts';
import { tinyDataDir } from '../fixtures/tiny.ts';
import { runOdsnap } from '../fixtures/command.ts';

const freePort = async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
};

describe('odsnap', () => {
  it('lists every command in --help', async () => {
    const { code, out } = await runOdsnap('--help');
    expect(code).toBe(0);
    for (const command of commands) expect(out).toContain(command.name);
  });

  it('answers no command at all with the list of commands on stderr and exit code 2', async () => {
    const { code, out, err } = await runOdsnap();
    expect(code).toBe(2);
    expect(out).toBe('');
    for (const command of commands) expect(err).toContain(command.name);
  });

  it('says its version', async () => {
    const { version } = JSON.parse(await readFile('package.json', 'utf8'));
    for (const flag of ['--version', '-V']) expect(await runOdsnap(flag)).toEqual({ code: 0, out: `odsnap ${version}\n`, err: '' });
  });

  it.each(commands.map((c) => [c.name, c] as const))('%s --help shows every option and exits 0', async (name, command) => {
    const { code, out } = await runOdsnap(name, '--help');
    expect(code).toBe(0);
    expect(out).toContain(`Usage: odsnap ${name}`);
    for (const option of Object.keys(command.options)) expect(out).toContain(`--${option}`);
  });

  /** Bad command lines: each answered with one line on stderr and exit code 2. */
  const badArguments: [string[], string][] = [
    [['frobnicate'], 'unknown command "frobnicate"'],
    [['sample', '--scale', 'huge'], '--scale must be one of tiny, small, city'],
    [['sample', '--seed', 'x'], '--seed must be a whole number'],
    [['sample', '--until', '2024-13-45'], '--until must be a date, YYYY-MM-DD'],
    [['sample', '--colour'], "Unknown option '--colour'"],
    [['sample', 'extra'], "Unexpected argument 'extra'"],
    [['verify', '--data'], "Option '--data <value>' argument missing"],
    [['serve', '--memory-limit', 'lots'], '--memory-limit must be a size such as 128MB or 1GB'],
    [['build', '--tiles', 'ftp://tiles.example.org/{z}/{x}/{y}.png'], '--tiles must be none, or an http(s) URL template'],
    [['start', '--tiles', 'https://tiles.example.org/tile.png'], '--tiles must hold {z}, {x}, {y}'],
    [['sample', '--seed', '-1'], "Option '--seed' argument is ambiguous: a value that starts with a dash is written --seed=-…; run"],
  ];

  it.each(badArguments)('answers %j with one line and exit code 2', async (argv, message) => {
    const { code, err, out } = await runOdsnap(...argv);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain(message);
    expect(err.trimEnd().split('\n')).toHaveLength(1);
  });

  // A first build runs on a thread of its own (build-on-thread.ts): its errors must still reach the command line.
  it.each([['verify'], ['build']])('%s says where a data directory holds no snapshot, with exit code 1', async (name) => {
    const empty = await mkdtemp(join(tmpdir(), 'odsnap-empty-'));
    const { code, err } = await runOdsnap(name, '--data', empty, ...(name === 'build' ? ['--out', join(empty, 'dist')] : []));
    await rm(empty, { recursive: true });
    expect(code).toBe(1);
    expect(err).toContain('holds no snapshot yet; make one with "odsnap sample" or "odsnap pull"');
  });

  it.each([['serve'], ['sql'], ['build'], ['verify']])(
    '%s says a --data that does not exist does not, and one that is a file is not a directory, with exit code 2',
    async (name) => {
      const scratch = await mkdtemp(join(tmpdir(), 'odsnap-nodir-'));
      const file = join(scratch, 'file');
      await writeFile(file, 'not a directory');
      const extra = name === 'sql' ? ['SELECT 1'] : name === 'build' ? ['--out', join(scratch, 'dist')] : [];
      const missing = await runOdsnap(name, '--data', join(scratch, 'nonexistent'), ...extra);
      expect(missing.code).toBe(2);
      expect(missing.err).toContain(`--data ${join(scratch, 'nonexistent')}: no such directory; make a snapshot there with "odsnap sample --out`);
      const notDirectory = await runOdsnap(name, '--data', file, ...extra);
      expect(notDirectory.code).toBe(2);
      expect(notDirectory.err).toContain(`--data ${file} is a file, not a directory`);
      await rm(scratch, { recursive: true });
    },
  );

  it('sql refuses an --out in no directory, or one that is a directory, with exit code 2', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'odsnap-noout-'));
    const nowhere = await runOdsnap('sql', '--data', tinyDataDir(), '--out', join(scratch, 'missing', 'x.parquet'), 'SELECT 1');
    expect(nowhere.code).toBe(2);
    expect(nowhere.err).toContain(`--out ${join(scratch, 'missing', 'x.parquet')}: ${join(scratch, 'missing')} is no directory to write in`);
    const directory = await runOdsnap('sql', '--data', tinyDataDir(), '--out', scratch, '--format', 'json', 'SELECT 1');
    expect(directory.code).toBe(2);
    expect(directory.err).toContain(`--out ${scratch} is a directory, not a file`);
    await rm(scratch, { recursive: true });
  });

  it.each([['pull'], ['start']])('%s, which may make its data directory, refuses one that is a file, with exit code 2', async (name) => {
    const scratch = await mkdtemp(join(tmpdir(), 'odsnap-nodir-'));
    const file = join(scratch, 'file');
    await writeFile(file, 'not a directory');
    const { code, err } = await runOdsnap(name, '--data', file, ...(name === 'pull' ? ['--from', 'http://127.0.0.1:9'] : []));
    expect(code).toBe(2);
    expect(err).toContain(`--data ${file} is a file, not a directory`);
    await rm(scratch, { recursive: true });
  });

  it.each([
    ['verify', 'nope'],
    ['sql', 'nope'],
    ['verify', '..'],
  ])('%s --snapshot %s names the snapshots there are, as that is not one', async (name, id) => {
    const { code, err } = await runOdsnap(name, '--data', tinyDataDir(), '--snapshot', id, ...(name === 'sql' ? ['SELECT 1'] : []));
    expect(code).toBe(1);
    const current = (await readlink(join(tinyDataDir(), 'current'))).split('/').pop()!;
    expect(err).toContain(`holds no snapshot ${JSON.stringify(id)}; it holds ${current}`);
  });

  it('build writes the tree, saying each endpoint as a step, then its summary, and builds it again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'odsnap-build-'));
    try {
      const { code, err } = await runOdsnap('build', '--data', tinyDataDir(), '--out', join(dir, 'dist'), '--no-site');
      expect(code).toBe(0);
      expect(err).toMatch(/\/api\/public\/rcn\/transactions: [\d,]+ files\n/);
      expect(err).toMatch(/dist -> .*: snapshot \S+, [\d,]+ files; .* written/);
      // Linked from the host's root, the DCAT-AP record cannot name things by absolute IRIs: the build says so, and what to do.
      expect(err).toMatch(/odsnap build: warning: downloads\/dcat\.jsonld names things by root-relative IRIs.*--base-url https:/);
      const index = JSON.parse(await readFile(join(dir, 'dist', 'api', 'public', 'index.json'), 'utf8'));
      expect(index.snapshot.id).toMatch(/^\d{8}T\d{6}Z-/);
      // A rebuild (here, not on a thread: see build-on-thread.ts) over the tree in use writes nothing new.
      const again = await runOdsnap('build', '--data', tinyDataDir(), '--out', join(dir, 'dist'), '--no-site');
      expect(again.code).toBe(0);
      expect(again.err).toMatch(/; 0 written \(0 B\), [\d,]+ linked, 0 deleted/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('build names the publisher and contact given for the DCAT-AP record, and refuses a contact that is neither an e-mail address nor a URL', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'odsnap-build-'));
    try {
      const out = join(dir, 'dist');
      const built = await runOdsnap(
        'build',
        '--data',
        tinyDataDir(),
        '--out',
        out,
        '--no-site',
        '--base-url',
        'https://data.example.org/odsnap',
        '--publisher',
        'City of Example',
        '--contact',
        'opendata@example.org',
      );
      expect(built.code).toBe(0);
      expect(built.err).not.toContain('warning');
      const dcat = JSON.parse(await readFile(join(out, 'downloads', 'dcat.jsonld'), 'utf8'));
      expect(dcat['@id']).toBe('https://data.example.org/odsnap/downloads/dcat.jsonld');
      expect(dcat['dcat:dataset'][0]['dct:publisher']['foaf:name']).toBe('City of Example');
      expect(dcat['dcat:dataset'][0]['dcat:contactPoint']['vcard:hasEmail']).toEqual({ '@id': 'mailto:opendata@example.org' });
      const refused = await runOdsnap('build', '--data', tinyDataDir(), '--out', out, '--contact', 'call us');
      expect(refused.code).toBe(2);
      expect(refused.err).toContain('--contact must be an e-mail address or an http(s) URL');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('has every command in the README, and a section of the manual for each', async () => {
    const readme = await readFile('README.md', 'utf8');
    const manual = await readFile('docs/commands.md', 'utf8');
    for (const command of commands) {
      expect(readme).toContain(`odsnap ${command.name}`);
      expect(manual).toContain(`\n## \`odsnap ${command.name}\`\n`);
    }
  });

  it('says when the port is taken, and exits instead of hanging', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = String((taken.address() as AddressInfo).port);
    try {
      const failed = await promisify(execFile)(process.execPath, ['bin/odsnap.js', 'serve', '--data', tinyDataDir(), '--port', port], {
        timeout: 60_000,
      }).catch((error) => error);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain(`127.0.0.1:${port} is in use (another odsnap serve?); choose another port with --port ${Number(port) + 1}`);
      // Started by `npm start`, whose own options come before `--`: the advice says how to pass it there.
      const saved = { ...process.env };
      Object.assign(process.env, { npm_lifecycle_event: 'start', npm_lifecycle_script: 'node bin/odsnap.js start' });
      try {
        expect(portOption(4322)).toBe('"npm start -- --port 4322"');
      } finally {
        process.env = saved;
      }
    } finally {
      taken.close();
    }
  });

  it("serves a static tree beside the API only when it was built from the data directory's own snapshots, and says when not", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'odsnap-static-'));
    const tree = async (snapshotId: string) => {
      await mkdir(join(dir, 'dist', 'api', 'public'), { recursive: true });
      await writeFile(join(dir, 'dist', 'api', 'public', 'index.json'), JSON.stringify({ snapshot: { id: snapshotId } }));
      await writeFile(join(dir, 'dist', 'hello.json'), '{"hello":true}');
    };
    const serveWith = async () => {
      const port = await freePort();
      const child = spawn(process.execPath, [
        'bin/odsnap.js',
        'serve',
        '--data',
        tinyDataDir(),
        '--static',
        join(dir, 'dist'),
        '--port',
        String(port),
        '--quiet',
      ]);
      let err = '';
      child.stderr.on('data', (chunk) => (err += chunk));
      try {
        while (!err.includes('serving snapshot')) {
          if (child.exitCode !== null) throw new Error(err);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return { status: (await fetch(`http://127.0.0.1:${port}/hello.json`)).status, err };
      } finally {
        child.kill('SIGINT');
      }
    };
    try {
      await tree('20200101T000000Z-0badc0de');
      const foreign = await serveWith();
      expect(foreign.status).toBe(404);
      expect(foreign.err).toContain(
        `not serving the static tree at ${join(dir, 'dist')}: it was built from snapshot 20200101T000000Z-0badc0de, which ${tinyDataDir()} does not hold`,
      );
      await tree((await readlink(join(tinyDataDir(), 'current'))).split('/').pop()!);
      const own = await serveWith();
      expect(own.status).toBe(200);
      expect(own.err).not.toContain('not serving');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('runs as a real process through bin/odsnap.js', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['bin/odsnap.js', 'sample', '--help']);
    expect(stdout).toContain('Usage: odsnap sample');
  });
});
