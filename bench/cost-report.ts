/** The cost curve's figures (see cost-curve.ts), and how they are shown: a Markdown table and a chart. */
import type { Scale } from '../datasets/vocabulary/sample.ts';

export interface Stage {
  readonly stage: 'sample' | 'pull' | 'build' | 'serve';
  readonly seconds: number;
  /** The stage's processes together, at their peak. */
  readonly peakMiB: number;
  /** The odsnap process alone, at its peak (the rest: the site's build, the serving database's). */
  readonly ownPeakMiB: number;
  /** The most disk the stage took at once, beyond what the file system held when it began (all of it: journals, staging, spill). */
  readonly peakDiskMiB: number;
  /** How many processes the stage took, when a stopped run went on (`--resume`); one if absent. */
  readonly lives?: number;
}

export interface ScaleFigures {
  readonly scale: Scale;
  readonly rows: number;
  readonly parquetBytes: number;
  readonly treeFiles: number;
  readonly treeBytes: number;
  readonly stages: Stage[];
}

/** A bar per scale and stage, its length the logarithm of the seconds: a curve that stays straight grows in proportion. */
function chart(measured: readonly ScaleFigures[]): string[] {
  const all = measured.flatMap((m) => m.stages.map((stage) => stage.seconds));
  const [least, most] = [Math.min(...all), Math.max(...all)];
  const width = 40;
  const bar = (seconds: number) =>
    '█'.repeat(Math.max(1, Math.round(((Math.log(seconds) - Math.log(least)) / (Math.log(most) - Math.log(least) || 1)) * width)));
  const lines = [`seconds, on a log scale (${least.toFixed(1)} to ${most.toFixed(0)} s)`, ''];
  for (const name of stageNames) {
    for (const [i, m] of measured.entries()) {
      const stage = m.stages.find((s) => s.stage === name);
      if (!stage) continue;
      lines.push(
        `${(i === 0 ? name : '').padEnd(6)} ${m.scale.padEnd(6)} ${`${millions(m.rows)} M rows`.padStart(14)}  ${bar(stage.seconds)} ${stage.seconds.toFixed(1)}`,
      );
    }
    lines.push('');
  }
  return lines.slice(0, -1);
}

const millions = (n: number) => (n / 1e6).toLocaleString('en', { maximumFractionDigits: 2 });
const mib = (bytes: number) => (bytes / 2 ** 20).toLocaleString('en', { maximumFractionDigits: 0 });
export const stageNames = ['sample', 'pull', 'build', 'serve'] as const;

/** A figure an earlier run's results may lack (runs before it was measured). */
const whole = (value: number | undefined) => (value === undefined ? '–' : value.toFixed(0));

/** The table and the chart of the figures, in Markdown. */
export function render(measured: readonly ScaleFigures[]): string {
  const cell = (m: ScaleFigures, name: Stage['stage']) => {
    const stage = m.stages.find((s) => s.stage === name);
    return stage
      ? `${stage.seconds.toFixed(1)}${stage.lives ? ` (in ${stage.lives} processes)` : ''} / ${whole(stage.peakMiB)} (${whole(stage.ownPeakMiB)}) / ${whole(stage.peakDiskMiB)}`
      : '–';
  };
  return [
    `| scale | rows (M) | Parquet (MiB) | tree files | tree (MiB) | ${stageNames.map((s) => `${s}: s / peak MiB (own) / disk MiB`).join(' | ')} |`,
    `| --- | ---: | ---: | ---: | ---: | ${stageNames.map(() => '---:').join(' | ')} |`,
    ...measured.map(
      (m) =>
        `| ${m.scale} | ${millions(m.rows)} | ${mib(m.parquetBytes)} | ${m.treeFiles.toLocaleString('en')} | ${mib(m.treeBytes)} | ${stageNames.map((name) => cell(m, name)).join(' | ')} |`,
    ),
    '',
    '```',
    ...chart(measured),
    '```',
  ].join('\n');
}
