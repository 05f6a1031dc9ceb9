import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../fixtures/server.ts';
import { runOdsnap } from '../fixtures/command.ts';
import { tempDir } from '../fixtures/tiny.ts';

/** `odsnap start` as a real process, until it says where it serves; then Ctrl-C. */
async function start(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['bin/odsnap.js', 'start', '--port', '0', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string | undefined>((resolve) => {
    child.stdout.on('data', (chunk) => {
      out += chunk;
      // Readable, or a JSON line's msg.
      const found = /serving snapshot \S+ at (http:\/\/[^\s"]+)/.exec(out);
      if (found) resolve(found[1]);
    });
    void exited.then(() => resolve(undefined));
  });
  const stop = async () => {
    child.kill('SIGINT');
    return exited;
  };
  return { url, stop, exited, output: () => ({ out, err }) };
}

/** Each line of a stream's text, parsed: a JSON object with a msg or an event (the server's own events carry no time). */
const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const parsed = JSON.parse(line);
      expect(typeof parsed.msg === 'string' || typeof parsed.event === 'string', line).toBe(true);
      return parsed as { msg?: string; event?: string; snapshot?: string; url?: string };
    });

describe('odsnap start', () => {
  let dir: string;
  let first: { out: string; err: string };
  beforeAll(async () => {
    dir = await tempDir('start');
  });

  it('pulls the sample city through its v1 interface on first run, builds the tree and serves it all', async () => {
    const started = await start(['--scale', 'tiny', '--data', join(dir, 'data'), '--out', join(dir, 'dist')]);
    try {
      expect(started.url, started.output().err).toBeDefined();
      const { err } = started.output();
      expect(err).toContain('generating the tiny sample city');
      expect(err).toContain('pulled in');
      expect(err).toContain('static tree built');
      const api = await fetch(`${started.url}/api/public/rcn/transactions?limit=1`);
      expect(api.status).toBe(200);
      expect(((await api.json()) as { items: unknown[] }).items).toHaveLength(1);
      const index = await fetch(`${started.url}/api/public/index.json`);
      expect(index.status).toBe(200);
      const { snapshot, licence } = (await index.json()) as { snapshot: { id: string; source: unknown }; licence: { attribution: string } };
      expect(snapshot.source).toMatchObject({ kind: 'pull', sample: { scale: 'tiny' } });
      expect(licence.attribution).toContain('Synthetic sample city');
      const manifest = JSON.parse(await readFile(join(dir, 'data', 'current', 'manifest.json'), 'utf8'));
      expect(manifest.id).toBe(snapshot.id);
    } finally {
      expect(await started.stop()).toBe(0);
      first = started.output();
    }
  });

  it('writes every line as JSON off a terminal, its steps as messages, as odsnap serve writes its own', () => {
    const err = jsonLines(first.err);
    expect(err.map((line) => line.msg)).toEqual(expect.arrayContaining([expect.stringMatching(/^static tree built: /), expect.stringMatching(/^pulled in /)]));
    expect(err.some((line) => line.event === 'progress')).toBe(true);
    // The address, as a message with its snapshot and url; the rest of stdout is the server's events.
    const out = jsonLines(first.out);
    expect(out.filter((line) => line.msg)).toEqual([
      { time: expect.any(String), msg: expect.stringMatching(/^odsnap is serving snapshot /), snapshot: expect.any(String), url: expect.any(String) },
    ]);
  });

  it('reuses the snapshot and the tree on a later start', async () => {
    const started = await start(['--scale', 'tiny', '--data', join(dir, 'data'), '--out', join(dir, 'dist')]);
    try {
      expect(started.url).toBeDefined();
      const { err } = started.output();
      expect(err).toContain('using snapshot');
      expect(err).toContain('using the static tree');
      expect(err).not.toContain('pulled in');
      expect((await fetch(`${started.url}/healthz`)).status).toBe(200);
    } finally {
      expect(await started.stop()).toBe(0);
    }
  });

  it('writes readable lines off a terminal when told --log-format pretty', async () => {
    const started = await start(['--scale', 'tiny', '--data', join(dir, 'data'), '--out', join(dir, 'dist'), '--log-format', 'pretty']);
    expect((await fetch(`${started.url}/healthz`)).status).toBe(200);
    expect(await started.stop()).toBe(0);
    const { out, err } = started.output();
    expect(err).toMatch(/^\[ +\d+\.\ds\] using snapshot /m);
    expect(out).toContain('\nCtrl-C stops.\n');
    expect(`${out}${err}`.split('\n').filter((line) => line.startsWith('{'))).toEqual([]);
  });

  it('stops cleanly on a Ctrl-C sent the moment the address is printed', async () => {
    const started = await start(['--scale', 'tiny', '--data', join(dir, 'data'), '--out', join(dir, 'dist')]);
    expect(started.url).toBeDefined();
    expect(await started.stop()).toBe(0);
  });

  it('is listed by odsnap snapshots as the sample city, not a port long gone, with the files verify counts and what own and shared mean', async () => {
    const listed = await runOdsnap('snapshots', '--data', join(dir, 'data'));
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(/sample tiny, seed 1, until \d{4}-\d\d-\d\d, pulled through v1/);
    expect(listed.out).not.toContain('127.0.0.1');
    expect(listed.out).toContain('own: bytes only that snapshot holds');
    const verified = await runOdsnap('verify', '--data', join(dir, 'data'));
    const files = /: (\d+) files, /.exec(verified.err)?.[1];
    expect(files, verified.err).toBeDefined();
    expect(listed.out).toMatch(new RegExp(`\\s${files}\\s+\\S+ \\S?i?B\\s+\\S+ \\S?i?B\\n`));
  });

  it('pulls again when told of an upstream the current snapshot did not come from', async () => {
    const upstream = await startTestServer();
    const started = await start(['--data', join(dir, 'data'), '--out', join(dir, 'dist')], { ODSNAP_UPSTREAM: upstream.url });
    try {
      expect(started.url, started.output().err).toBeDefined();
      expect(started.output().err).toContain(`pulling from ${upstream.url}`);
      const { snapshot } = (await (await fetch(`${started.url}/api/public/index.json`)).json()) as { snapshot: { source: unknown } };
      expect(snapshot.source).toEqual({ kind: 'pull', upstream: upstream.url });
    } finally {
      expect(await started.stop()).toBe(0);
      await upstream.close();
    }
  });

  it('refuses an ODSNAP_UPSTREAM that is not an http(s) address, in one line with exit code 2', async () => {
    const started = await start(['--data', join(dir, 'other')], { ODSNAP_UPSTREAM: 'ftp://example.org' });
    expect(started.url).toBeUndefined();
    expect(await started.exited).toBe(2);
    expect(started.output().err.trim().split('\n')).toEqual([
      'odsnap start: ODSNAP_UPSTREAM must be the http(s) address of a v1 service, not "ftp://example.org"',
    ]);
  });
});
