import { spawn } from 'node:child_process';
import { mkdir, readlink, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { builtSnapshotId } from '../../../core/published-tree.ts';
import { datasets } from '../../../datasets/index.ts';
import { buildStatic } from '../../../scripts/static/build-static.ts';
import { siteFiles, startSiteBuild } from '../../../scripts/static/site.ts';
import { treesDir } from '../../../scripts/static/tree-state.ts';
import { capture } from '../../fixtures/output.ts';
import { tempDir, tinyDataDir } from '../../fixtures/tiny.ts';

const currentSnapshot = async () => (await readlink(join(tinyDataDir(), 'current'))).split('/').pop()!;

describe('two builds into one output', () => {
  it('let one write it; the other says which process holds it, and the command exits 2 until that process is gone', async () => {
    const out = join(await tempDir('builds-at-once'), 'dist');
    const builds = await Promise.allSettled([buildStatic({ dataDir: tinyDataDir(), out, datasets }), buildStatic({ dataDir: tinyDataDir(), out, datasets })]);
    expect(builds.map((build) => build.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = (builds.find((build) => build.status === 'rejected') as PromiseRejectedResult).reason as Error;
    expect(refused.message).toMatch(
      new RegExp(`^another odsnap build \\(process ${process.pid}, started [^)]+\\) is writing ${out}; wait for it to end, or stop it$`),
    );
    expect(builtSnapshotId(out)).toBe(await currentSnapshot());

    // Another process holds a new output (its first build, which runs on a thread of its own).
    const fresh = join(await tempDir('builds-at-once'), 'dist');
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120_000)']);
    await mkdir(treesDir(fresh), { recursive: true });
    await writeFile(join(treesDir(fresh), 'lock'), `${holder.pid} 2026-01-01T00:00:00.000Z`);
    const build = async () => {
      const output = capture();
      return { code: await main(['build', '--data', tinyDataDir(), '--out', fresh, '--no-site'], output), err: output.err() };
    };
    const busy = await build();
    expect(busy.code).toBe(2);
    expect(busy.err).toContain(`odsnap build: another odsnap build (process ${holder.pid}, started 2026-01-01T00:00:00.000Z) is writing ${fresh}`);
    // Its process gone, the lock is taken over.
    await new Promise((resolve) => holder.once('exit', resolve).kill());
    const after = await build();
    expect(after.code, after.err).toBe(0);
    expect(builtSnapshotId(fresh)).toBe(await currentSnapshot());
  });
});

describe('a site build', () => {
  it("publishes the site, never what Astro left of its server code (its manifest names this machine's paths)", async () => {
    // Where Astro puts its server code when the site goes outside its working directory: a build
    // stopped half way, or running beside this one, leaves its manifest there.
    const shared = join(fileURLToPath(new URL('../../..', import.meta.url)), '.astro');
    const leftover = join(shared, 'manifest_0ddba11.mjs');
    await mkdir(shared, { recursive: true });
    await writeFile(leftover, `export const manifest = { root: ${JSON.stringify(shared)} };\n`);
    try {
      const outDir = join(await tempDir('site-alone'), 'site');
      await startSiteBuild({ outDir }).done;
      const files = await siteFiles(outDir);
      expect(files).toContain('index.html');
      expect(files.filter((file) => file.endsWith('.mjs') || file.includes('manifest_'))).toEqual([]);
    } finally {
      await rm(leftover, { force: true });
    }
  });
});
