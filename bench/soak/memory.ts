import { readdir, readFile } from 'node:fs/promises';

/** Resident memory, in KiB, of the server and of its descendants by what they do, read together. */
export interface Memory {
  readonly server: number;
  /** Its SQL processes (server/sql/runner-process.ts). */
  readonly sql: number;
  /** Its serving-database builds (server/serve-database-process.ts). */
  readonly builder: number;
  readonly all: number;
}

const noMemory: Memory = { server: 0, sql: 0, builder: 0, all: 0 };
const maxMemory = (a: Memory, b: Memory): Memory => ({
  server: Math.max(a.server, b.server),
  sql: Math.max(a.sql, b.sql),
  builder: Math.max(a.builder, b.builder),
  all: Math.max(a.all, b.all),
});

async function treeRss(root: number): Promise<Memory> {
  const parents = new Map<number, number>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid) parents.set(Number(name), ppid);
  }
  const inTree = (pid: number): boolean => pid === root || (parents.has(pid) && pid !== 1 && inTree(parents.get(pid)!));
  const memory = { server: 0, sql: 0, builder: 0, all: 0 };
  for (const pid of [root, ...[...parents.keys()].filter((pid) => pid !== root && inTree(pid))]) {
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    const command = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    if (pid === root) memory.server = rss;
    else if (command.includes('runner-process')) memory.sql += rss;
    else if (command.includes('serve-database-process')) memory.builder += rss;
    memory.all += rss;
  }
  return memory;
}

/** The peak memory of a process and its descendants, sampled every 100 ms: over the whole run, and by the phase it was in. */
export class MemoryPeaks {
  /** The phase of the run now, which samples are counted under. */
  phase = 'first start';
  peak = noMemory;
  readonly byPhase: Record<string, Memory> = {};
  private readonly sampler: NodeJS.Timeout;

  constructor(pid: number) {
    this.sampler = setInterval(async () => {
      const now = await treeRss(pid).catch(() => noMemory);
      this.peak = maxMemory(this.peak, now);
      this.byPhase[this.phase] = maxMemory(this.byPhase[this.phase] ?? noMemory, now);
    }, 100);
  }

  stop(): void {
    clearInterval(this.sampler);
  }
}
