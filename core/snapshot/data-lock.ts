import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { dataLayout } from './layout.ts';
import { isAlive } from './write.ts';

/**
 * One writer at a time per data directory (a pull, a prune): `.pull/lock`, created only if absent
 * (so two starting together cannot both take it), holds its process id and what it does. A lock
 * left by a process that died is taken over.
 */
export async function lockDataDir(dataDir: string, what: 'pull' | 'prune'): Promise<() => Promise<void>> {
  const runDir = join(dataLayout(dataDir).root, '.pull');
  await mkdir(runDir, { recursive: true });
  const file = join(runDir, 'lock');
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(`${process.pid} ${what}`);
      await handle.close();
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw error;
    }
    const [holder, doing = 'pull'] = (await readFile(file, 'utf8').catch(() => '')).trim().split(' ');
    const pid = Number(holder);
    if (pid && pid !== process.pid && isAlive(pid))
      throw new Error(`another ${doing} (process ${pid}) is working on this data directory; wait for it or stop it`);
    // Its owner is gone (or it is this process's own, left by a run that failed): taken over.
    await rm(file, { force: true });
  }
}
