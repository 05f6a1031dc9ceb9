import { spawn, spawnSync } from 'node:child_process';
import { link, mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../../core/calendar.ts';
import { readHistory } from '../../../core/snapshot/history.ts';
import { dataLayout } from '../../../core/snapshot/layout.ts';
import { markReading, snapshotsRead } from '../../../core/snapshot/readers.ts';
import { makeCurrent } from '../../../core/snapshot/write.ts';
import { chooseKept, isoWeek, prune } from '../../../core/snapshot/retention.ts';
import { datasets } from '../../../datasets/index.ts';
import { defaultUntil } from '../../../datasets/vocabulary/sample.ts';
import { generateSample } from '../../../scripts/sample/generate.ts';
import { startTestServer } from '../../fixtures/server.ts';
import { diskBytes } from '../../fixtures/history.ts';
import { tempDir } from '../../fixtures/tiny.ts';
import { runOdsnap } from '../../fixtures/command.ts';

describe('a retention policy', () => {
  it('numbers ISO weeks as the standard does across years', () => {
    expect(['2020-12-31', '2021-01-03', '2021-01-04', '2024-12-30', '2025-09-28', '2025-09-29'].map(isoWeek)).toEqual([
      '2020-W53',
      '2020-W53',
      '2021-W01',
      '2025-W01',
      '2025-W39',
      '2025-W40',
    ]);
  });

  it('keeps the newest N, and the newest of each of the newest days, weeks and months', () => {
    // A snapshot at 22:00 UTC every day of September 2025, and two on the 30th.
    const snapshots = Array.from({ length: 30 }, (_, i) => ({
      id: `d${String(i + 1).padStart(2, '0')}`,
      createdAt: `2025-09-${String(i + 1).padStart(2, '0')}T22:00:00Z`,
    }));
    snapshots.push({ id: 'd30-early', createdAt: '2025-09-30T06:00:00Z' });
    const kept = (policy: Parameters<typeof chooseKept>[1]) => Object.fromEntries([...chooseKept(snapshots, policy)].sort());
    expect(kept({ last: 3 })).toEqual({ d29: ['last'], d30: ['last'], 'd30-early': ['last'] });
    expect(kept({ daily: 3 })).toEqual({ d28: ['daily'], d29: ['daily'], d30: ['daily'] });
    // Weeks of September 2025: the 29th and 30th are W40; the 22nd–28th W39; the 15th–21st W38.
    expect(kept({ last: 1, weekly: 3 })).toEqual({ d21: ['weekly'], d28: ['weekly'], d30: ['last', 'weekly'] });
    expect(kept({ monthly: 2 })).toEqual({ d30: ['monthly'] });
    expect(kept({})).toEqual({});
  });
});

const du = diskBytes;

describe('a reader', () => {
  it('that marks a snapshot a prune has just removed is refused, its mark gone', async () => {
    const dataDir = await tempDir('reader-late');
    const written = await generateSample({ dataDir, datasets, settings: { scale: 'tiny', seed: 1, until: defaultUntil } });
    await rename(written.dir, join(dataDir, 'elsewhere'));
    expect(() => markReading(dataDir, written.id)).toThrow(`snapshot ${written.id} was removed (pruned) as it was being opened`);
    expect(snapshotsRead(dataDir)).toEqual(new Set());
  });
});

describe('odsnap prune', () => {
  const days = Array.from({ length: 10 }, (_, i) => addDays(defaultUntil, i - 9));
  let dataDir: string;
  let ids: string[];

  beforeAll(async () => {
    dataDir = await tempDir('prune');
    ids = [];
    for (const until of days) {
      const written = await generateSample({ dataDir, datasets, settings: { scale: 'tiny', seed: 1, until } });
      // As a pull does: a file the day did not change is a link to the one before.
      const previous = ids.at(-1);
      if (previous) {
        const before = JSON.parse(await readFile(join(dataLayout(dataDir).snapshot(previous), 'manifest.json'), 'utf8'));
        for (const [name, dataset] of Object.entries(written.manifest.datasets)) {
          for (const [table, t] of Object.entries(dataset.tables)) {
            for (const file of t.files) {
              const old = before.datasets[name].tables[table].files.find(
                (f: { path: string; sha256: string }) => f.path === file.path && f.sha256 === file.sha256,
              );
              if (!old) continue;
              await unlink(join(written.dir, file.path));
              await link(join(dataLayout(dataDir).snapshot(previous), file.path), join(written.dir, file.path));
            }
          }
        }
      }
      ids.push(written.id);
    }
  }, 120_000);

  const run = runOdsnap;

  it('says what it would remove on a dry run, and removes nothing', async () => {
    const before = du(dataDir);
    const { code, out, err } = await run('prune', '--data', dataDir, '--keep-last', '3', '--keep-weekly', '1', '--dry-run');
    expect(code).toBe(0);
    for (const id of ids.slice(0, 7)) expect(out).toContain(`would remove  ${id}`);
    expect(out).toContain(`keep          ${ids[9]}  (last, weekly, current)`);
    expect(err).toMatch(/would remove 7 snapshots of 10, freeing /);
    expect(du(dataDir)).toBe(before);
    expect((await readHistory(dataDir)).snapshots).toHaveLength(10);
  });

  it('refuses while a pull works on the data directory, and without a policy', async () => {
    const pulling = spawn('sleep', ['30']);
    try {
      await mkdir(join(dataDir, '.pull'), { recursive: true });
      await writeFile(join(dataDir, '.pull', 'lock'), String(pulling.pid));
      const refused = await run('prune', '--data', dataDir, '--keep-last', '1');
      expect(refused.code).toBe(1);
      expect(refused.err).toMatch(`another pull (process ${pulling.pid}) is working on this data directory`);
    } finally {
      pulling.kill();
      await unlink(join(dataDir, '.pull', 'lock'));
    }
    const bare = await run('prune', '--data', dataDir);
    expect(bare.code).toBe(2);
    expect(bare.err).toMatch(/say what to keep/);
    expect((await readHistory(dataDir)).snapshots).toHaveLength(10);
  });

  it('keeps what the policy, the current link and running readers keep, frees the bytes it reports, and the server answers throughout', async () => {
    // The current snapshot is an older one; a process reads another; a reader that died marked a third.
    await makeCurrent(dataDir, ids[4]!);
    const unmark = markReading(dataDir, ids[2]!);
    const dead = spawnSync('true').pid!;
    await writeFile(join(dataDir, '.readers', `${ids[1]}@${hostname()}-${dead}-0a1b2c3d`), '');
    // Something outside the snapshots (a built tree links their Parquet files) links a file only a removed snapshot has: shared, and it frees nothing.
    const tree = await tempDir('prune-tree');
    const treeFile = join(tree, 'manifest.json');
    const bytesOf = async () => (await readHistory(dataDir)).snapshots.find((s) => s.id === ids[1])!.bytes;
    const unlinked = await bytesOf();
    await link(join(dataLayout(dataDir).snapshot(ids[1]!), 'manifest.json'), treeFile);
    const linked = await bytesOf();
    const server = await startTestServer({ dataDir });
    let answered = 0;
    const failed: string[] = [];
    let serving = true;
    const requests = (async () => {
      while (serving) {
        const response = await server.fetch('/api/public/bike-counter/counters');
        if (response.status === 200) answered++;
        else failed.push(`${response.status} ${await response.text()}`);
        await response.arrayBuffer().catch(() => undefined);
      }
    })();
    try {
      const size = (await stat(treeFile)).size;
      expect(linked).toEqual({ own: unlinked.own - size, shared: unlinked.shared + size });
      const before = du(dataDir, tree);
      const result = await prune(dataDir, { last: 2, weekly: 3 });
      // Days: the last two (Sep 29, 30); weeks W40 (Sep 30), W39 (Sep 28), W38 (Sep 21); the current (Sep 25); the one read (Sep 23).
      const kept = [ids[0], ids[2], ids[4], ids[7], ids[8], ids[9]];
      expect((await readHistory(dataDir)).snapshots.map((s) => s.id)).toEqual(kept);
      expect(result.decisions.filter((d) => d.kept.length).map((d) => [d.id, d.kept])).toEqual([
        [ids[0], ['weekly']],
        [ids[2], ['in use']],
        [ids[4], ['current', 'in use']],
        [ids[7], ['weekly']],
        [ids[8], ['last']],
        [ids[9], ['last', 'weekly']],
      ]);
      expect(result.removed).toEqual([ids[1], ids[3], ids[5], ids[6]]);
      // du counts each file once: what it no longer counts is what the prune freed, links into kept snapshots freeing nothing.
      expect(before - du(dataDir, tree)).toBe(result.freedBytes);
      expect((await stat(treeFile)).nlink).toBe(1);
      expect(result.freedBytes).toBeGreaterThan(0);
      // The dead reader's mark is gone; the live one stays.
      expect(snapshotsRead(dataDir)).toEqual(new Set([ids[2], ids[4]]));
    } finally {
      serving = false;
      await requests;
      await server.close();
      unmark();
    }
    expect(failed).toEqual([]);
    expect(answered).toBeGreaterThan(0);
  });
});
