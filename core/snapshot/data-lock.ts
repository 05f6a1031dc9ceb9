import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dataLayout } from './layout.ts';
import { isAlive } from './write.ts';

/**
 * One writer at a time per data directory (a pull, a prune): `.pull/lock` holds its process id and
 * what it does. A lock left by a process that died is taken over.
 */
export async function lockDataDir(dataDir: string, what: 'pull' | 'prune'): Promise<() => Promise<void>> {
  const runDir = join(dataLayout(dataDir).root, '.pull');
  await mkdir(runDir, { recursive: true });
  const file = join(runDir, 'lock');
  const [holder, doing = 'pull'] = (await readFile(file, 'utf8').catch(() => '')).trim().split(' ');
  const pid = Number(holder);
  if (pid && pid !== process.pid && isAlive(pid)) {
    throw new Error(`another ${doing} (process ${pid}) is working on this data directory; wait for it or stop it`);
  }
  await writeFile(file, `${process.pid} ${what}`);
  return () => rm(file, { force: true });
}
