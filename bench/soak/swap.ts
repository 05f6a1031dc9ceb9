import { request } from './client.ts';
import type { SoakData } from './data-dir.ts';
import { newTally, run, type Tally } from './load.ts';
import type { MemoryPeaks } from './memory.ts';
import { SECONDS, SQL_CONNECTIONS, V1_CONNECTIONS } from './settings.ts';

export interface Swapped {
  /** Seconds into the soak the next snapshot was made current. */
  after: number;
  /** Seconds after that the server answered from it. */
  answeringAfter?: number;
}

export interface Soaked {
  readonly tally: Tally;
  readonly swapped: Swapped | undefined;
  /** Cores this process (the load generator) used during the soak. */
  readonly loadGeneratorCores: number;
}

/** The soak itself: v1 and SQL load for SECONDS, the next snapshot made current half-way. */
export async function soakWithSwap(data: SoakData, v1: readonly string[], memory: MemoryPeaks): Promise<Soaked> {
  const tally = newTally();
  const cpuBefore = process.cpuUsage();
  const soakStarted = Date.now();
  let swapped: Swapped | undefined;
  const swap = (async () => {
    await new Promise((resolve) => setTimeout(resolve, (SECONDS * 1000) / 2));
    memory.phase = 'soak, hot swap';
    const id = await data.swap();
    const at = Date.now();
    swapped = { after: (at - soakStarted) / 1000 };
    console.error(`  hot swap to ${id} after ${swapped.after.toFixed(0)} s…`);
    for (;;) {
      const health = await request('/healthz', 5000).catch(() => undefined);
      if (health && JSON.parse(health.body).snapshot === id) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    swapped.answeringAfter = (Date.now() - at) / 1000;
    console.error(`  the new snapshot answers ${swapped.answeringAfter.toFixed(1)} s later`);
    memory.phase = 'soak, after the swap';
  })();
  console.error(`  soak: ${V1_CONNECTIONS} v1 + ${SQL_CONNECTIONS} SQL connections, ${SECONDS} s…`);
  await run(soakStarted + SECONDS * 1000, v1, true, tally);
  await swap;
  const cpu = process.cpuUsage(cpuBefore);
  return { tally, swapped, loadGeneratorCores: (cpu.user + cpu.system) / 1000 / (Date.now() - soakStarted) };
}
