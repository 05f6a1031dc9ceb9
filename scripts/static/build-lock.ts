import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isAlive } from '../../core/snapshot/write.ts';
import { treesDir } from './tree-state.ts';

/** The code of the error a build gets when another holds its output (`odsnap build` exits 2 on it). */
export const OUTPUT_LOCKED = 'ODSNAP_OUTPUT_LOCKED';

/**
 * One build at a time per output: two at once wrote over each other's tree and site, and both
 * failed. The lock is `lock` beside the trees, holding the builder's process id and when it
 * started; it is made whole under another name and linked into place, which fails if it is there,
 * so two builds starting together cannot both take it, nor read it half written. A lock whose
 * process is gone is taken over. Resolves to what releases it.
 */
export async function lockOutput(out: string): Promise<() => Promise<void>> {
  const dir = treesDir(resolve(out));
  await mkdir(dir, { recursive: true });
  const lock = join(dir, 'lock');
  const mine = `${lock}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(mine, `${process.pid} ${new Date().toISOString()}`);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await link(mine, lock);
        return () => rm(lock, { force: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw error;
      }
      const [holder, started] = (await readFile(lock, 'utf8').catch(() => '')).trim().split(' ');
      const pid = Number(holder);
      // This process's own too: another build of it holds the output.
      if (pid && isAlive(pid))
        throw Object.assign(new Error(`another odsnap build (process ${pid}, started ${started}) is writing ${out}; wait for it to end, or stop it`), {
          code: OUTPUT_LOCKED,
        });
      await rm(lock, { force: true });
    }
  } finally {
    await rm(mine, { force: true });
  }
}
