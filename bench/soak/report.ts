import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ms, percentile } from '../city.ts';
import type { Tally } from './load.ts';
import type { Memory, MemoryPeaks } from './memory.ts';
import { IDLE_SECONDS, SCALE, SECONDS, SQL_CONNECTIONS, V1_CONNECTIONS } from './settings.ts';
import type { Soaked } from './swap.ts';

export interface SoakRun {
  readonly startSeconds: number;
  readonly idle: Tally;
  readonly medianBytes: number;
  readonly reach: { reqPerSec: number; p50: number };
  readonly soaked: Soaked;
  readonly memory: MemoryPeaks;
  readonly serverLog: readonly string[];
}

/** Prints the soak's table and notes, and writes its figures to bench/results/soak-<time>.json. */
export async function reportSoak({ startSeconds, idle, medianBytes, reach, soaked, memory, serverLog }: SoakRun): Promise<void> {
  const { tally: soak, swapped, loadGeneratorCores } = soaked;
  const peak: Memory = memory.peak;
  const peaks = memory.byPhase;
  const failures = [...soak.v1Failures, ...soak.sqlFailures, ...idle.v1Failures];
  const idleP50 = percentile(idle.v1, 50);
  const soakP50 = percentile(soak.v1, 50);
  const MiB = (kib: number) => `${(kib / 1024).toFixed(0)} MiB`;
  const lines = [
    `At ${SCALE} scale.`,
    '',
    '| | idle (v1 only) | soak (v1 + SQL, hot swap) |',
    '| --- | --- | --- |',
    `| seconds | ${IDLE_SECONDS} | ${SECONDS} |`,
    `| requests | ${idle.requests} | ${soak.requests} (${soak.v1.length + soak.v1Failures.length} v1, ${[...soak.sql.values()].reduce((a, b) => a + b, 0)} SQL) |`,
    `| failures | ${idle.v1Failures.length} | ${soak.v1Failures.length + soak.sqlFailures.length} |`,
    `| 5xx | ${idle.fivexx} | ${soak.fivexx} |`,
    `| v1 p50 / p99 ms | ${ms(idleP50)} / ${ms(percentile(idle.v1, 99))} | ${ms(soakP50)} / ${ms(percentile(soak.v1, 99))} |`,
    `| v1 p50 ÷ idle | | ${(soakP50 / idleP50).toFixed(2)}× (target ≤ 2×) |`,
    `| v1 req/s | ${Math.round(idle.v1.length / IDLE_SECONDS)} | ${Math.round(soak.v1.length / SECONDS)} |`,
    `| SQL answers | | ${[...soak.sql.entries()]
      .sort()
      .map(([key, n]) => `${key}: ${n}`)
      .join(', ')} (of the 400 time, ${soak.lightTimedOut} light queries that waited behind abusive ones) |`,
    '',
    `Peak RSS over the whole run: the server ${MiB(peak.server)} (target < 512 MiB); its SQL processes ${MiB(peak.sql)} together (each capped at 320 MiB of data); its serving-database builds ${MiB(peak.builder)}; all at once ${MiB(peak.all)}. By phase (server / SQL / builds): ${Object.entries(
      peaks,
    )
      .map(([name, p]) => `${name} ${MiB(p.server)} / ${MiB(p.sql)} / ${MiB(p.builder)}`)
      .join('; ')}.`,
    `First start (serving database built) answered after ${startSeconds.toFixed(1)} s; hot swap after ${swapped?.after.toFixed(0)} s, the new snapshot answering ${swapped?.answeringAfter?.toFixed(1)} s later. Load generator: ${loadGeneratorCores.toFixed(2)} cores of 2 during the soak (closed loops, ${V1_CONNECTIONS + SQL_CONNECTIONS} connections); the same client against a bare node:http server answering ${medianBytes} B (the v1 median) reached ${Math.round(reach.reqPerSec)} req/s, p50 ${ms(reach.p50)} ms, in this run.`,
  ];
  console.log(lines.join('\n'));
  if (failures.length)
    console.log(
      `\nFailures (first 10):\n${failures
        .slice(0, 10)
        .map((f) => `- ${f}`)
        .join('\n')}`,
    );
  await mkdir('bench/results', { recursive: true });
  await writeFile(
    join('bench/results', `soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
    JSON.stringify(
      {
        scale: SCALE,
        seconds: SECONDS,
        idleSeconds: IDLE_SECONDS,
        startSeconds,
        generatorReach: { bytes: medianBytes, ...reach },
        swapped,
        loadGeneratorCores,
        peakKiB: peak,
        peaksKiB: peaks,
        idle: { ...idle, v1: undefined, v1Bytes: undefined, p50: idleP50, p99: percentile(idle.v1, 99) },
        soak: { ...soak, v1: undefined, v1Bytes: undefined, sql: Object.fromEntries(soak.sql), p50: soakP50, p99: percentile(soak.v1, 99) },
        serverEvents: serverLog.filter((line) => line.includes('"event"')).slice(-50),
      },
      null,
      2,
    ),
  );
}
