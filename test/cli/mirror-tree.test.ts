import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMovingCity, type MovingCity } from '../fixtures/moving-city.ts';
import { tempDir } from '../fixtures/pull.ts';

/**
 * The tree `odsnap mirror --out` rebuilds after each pull is the one `odsnap build` would write
 * with the same publishing options: with --base-url its GBFS feed has the discovery file (which
 * lists absolute URLs), with --contact its feed and DCAT-AP record name whom to ask.
 */

describe('the tree a mirror rebuilds', () => {
  let city: MovingCity;
  let out: string;

  beforeAll(async () => {
    const dir = await tempDir('mirror-tree');
    out = join(dir, 'dist');
    city = await startMovingCity(['--out', join(dir, 'city'), '--scale', 'tiny', '--port', '0']);
    const mirror = spawn(
      process.execPath,
      [
        'bin/odsnap.js',
        'mirror',
        '--from',
        city.url,
        '--data',
        join(dir, 'data'),
        '--out',
        out,
        '--base-url',
        'https://mirror.example.org/odsnap',
        '--contact',
        'feeds@example.org',
        '--jitter',
        '0',
      ],
      { env: { ...process.env, ODSNAP_CLOCK: city.clock }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let log = '';
    mirror.stderr.on('data', (chunk) => (log += chunk));
    const exited = new Promise((resolve) => mirror.once('exit', resolve));
    try {
      for (let waited = 0; !log.includes('"event":"static tree built"'); waited += 250) {
        if (waited > 240_000 || mirror.exitCode !== null) throw new Error(`the mirror built no tree:\n${log.slice(-3000)}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    } finally {
      mirror.kill('SIGKILL');
      await exited;
    }
  }, 300_000);
  afterAll(() => city?.stop());

  it('publishes the GBFS discovery file with absolute URLs under --base-url', async () => {
    const discovery = JSON.parse(await readFile(join(out, 'gbfs/citybike/gbfs.json'), 'utf8'));
    const urls = discovery.data.feeds.map((feed: { url: string }) => feed.url);
    expect(urls.length).toBeGreaterThan(1);
    for (const url of urls) expect(url).toMatch(/^https:\/\/mirror\.example\.org\/odsnap\/gbfs\/citybike\//);
  });

  it('names the --contact in the feed and in the DCAT-AP record', async () => {
    const system = JSON.parse(await readFile(join(out, 'gbfs/citybike/system_information.json'), 'utf8'));
    expect(system.data.feed_contact_email).toBe('feeds@example.org');
    expect(await readFile(join(out, 'downloads/dcat.jsonld'), 'utf8')).toContain('mailto:feeds@example.org');
  });
});
