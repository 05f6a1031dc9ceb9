import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeMirrorStatus } from '../../core/mirror-status.ts';
import { datasets } from '../../datasets/index.ts';
import { buildStatic } from '../../scripts/static/build-static.ts';
import { mirrorRecord, tinyCopy } from '../fixtures/mirror-status.ts';

/** The site's status page, built from a tree whose data directory a mirror keeps (its record as test/fixtures/mirror-status.ts writes it). */

/** A page's text as a reader sees it: tags gone, entities read, white space collapsed. */
const textOf = (html: string) =>
  html
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/\s+/g, ' ');

describe('the status page', () => {
  let out: string;

  beforeAll(async () => {
    const dataDir = await tinyCopy('status-page');
    out = join(dataDir, '..', 'dist');
    await writeMirrorStatus(dataDir, mirrorRecord());
    await buildStatic({ dataDir, out, datasets, site: true, tiles: 'none' });
  }, 300_000);

  it("shows the mirror's record: each data set's last pull, lag and error, each live feed's captures and recent gaps with why", async () => {
    const page = textOf(await readFile(join(out, 'status/index.html'), 'utf8'));
    expect(page).toContain('As of 2026-11-02 12:00 UTC');
    expect(page).toContain('https://upstream.example.org');
    expect(page).toContain('41 pulls succeeded, 3 failed');
    expect(page).toMatch(
      /Real-estate price register \(failing\) 2026-11-02 06:00 UTC 20261102T060000Z 6 hours 2026-11-02 18:00 UTC 2026-11-02 09:00 UTC: upstream answered 503/,
    );
    expect(page).toMatch(/City bike share 2026-11-02 11:00 UTC 20261102T110000Z 1 hour/);
    expect(page).toMatch(
      /\/api\/public\/citybike\/live 2026-11-02 12:00 UTC 0 seconds 2026-11-02 12:01 UTC 2,150 7 2026-11-02 10:15 UTC: upstream answered 429/,
    );
    expect(page).toContain('2026-11-02 03:00 UTC to 2026-11-02 03:05 UTC (5 min): upstream down');
    expect(page).toContain('2026-11-02 10:14 UTC to 2026-11-02 10:16 UTC (2 min): 429');
    expect(page).not.toContain('No mirror keeps this data current');
  });

  it('says the same in Polish', async () => {
    const page = textOf(await readFile(join(out, 'pl/status/index.html'), 'utf8'));
    expect(page).toContain('Stan na 2026-11-02 12:00 UTC');
    expect(page).toContain('udane pobrania: 41, nieudane: 3');
    expect(page).toMatch(/\(zawodzi\) 2026-11-02 06:00 UTC 20261102T060000Z 6 godzin/);
    expect(page).toContain('od 2026-11-02 03:00 UTC do 2026-11-02 03:05 UTC (5 min): upstream down');
  });

  it('is linked from the home page in both languages', async () => {
    expect(await readFile(join(out, 'index.html'), 'utf8')).toContain('href="/status/"');
    expect(await readFile(join(out, 'pl/index.html'), 'utf8')).toContain('href="/pl/status/"');
  });
});
