import { readdirSync, readFileSync } from 'node:fs';

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

/** Reads a file of /proc; '' once the process is gone. Read at once: a promise per small read cost more than the read. */
const procFile = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

/** A process and its descendants, from each thread's list of children (reading every process of /proc each time took a third of a core). */
function processTree(root: number): number[] {
  const tree = [root];
  for (let i = 0; i < tree.length; i++) {
    let threads: string[] = [];
    try {
      threads = readdirSync(`/proc/${tree[i]}/task`);
    } catch {}
    for (const thread of threads) {
      const children = procFile(`/proc/${tree[i]}/task/${thread}/children`);
      tree.push(...children.split(' ').filter(Boolean).map(Number));
    }
  }
  return tree;
}

function treeRss(root: number): { memory: Memory; serverLifetime: number } {
  const memory = { server: 0, sql: 0, builder: 0, all: 0 };
  let serverLifetime = 0;
  for (const pid of processTree(root)) {
    const status = procFile(`/proc/${pid}/status`);
    const command = procFile(`/proc/${pid}/cmdline`);
    const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    if (pid === root) {
      memory.server = rss;
      // Its peak over its whole life, which the kernel keeps: no sample misses it.
      serverLifetime = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? rss);
    } else if (command.includes('runner-process')) memory.sql += rss;
    else if (command.includes('serve-database-process')) memory.builder += rss;
    memory.all += rss;
  }
  return { memory, serverLifetime };
}

/**
 * The peak memory of a process and its descendants, sampled every 100 ms: over the whole run (the
 * server's own, the kernel's figure for its whole life), and by the phase it was in.
 */
export class MemoryPeaks {
  /** The phase of the run now, which samples are counted under. */
  phase = 'first start';
  peak = noMemory;
  readonly byPhase: Record<string, Memory> = {};
  private readonly sampler: NodeJS.Timeout;

  constructor(pid: number) {
    this.sampler = setInterval(() => {
      const { memory: now, serverLifetime } = treeRss(pid);
      this.peak = maxMemory(this.peak, { ...now, server: Math.max(now.server, serverLifetime) });
      this.byPhase[this.phase] = maxMemory(this.byPhase[this.phase] ?? noMemory, now);
    }, 100);
  }

  stop(): void {
    clearInterval(this.sampler);
  }
}
