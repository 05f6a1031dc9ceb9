import { acceleratedClock, clockFromEnvironment, clockSettingOf, type Clock } from '../core/clock.ts';
import type { Output } from '../core/progress.ts';
import { Progress } from '../core/progress.ts';
import { openSnapshot } from '../core/snapshot/read.ts';
import { currentSnapshotId } from '../core/snapshot/layout.ts';
import { datasets } from '../datasets/index.ts';
import { city } from '../datasets/vocabulary/sample-city.ts';
import { historyStart, sampleContext, type SampleSettings } from '../datasets/vocabulary/sample.ts';
import { sampleInProcess, serveSampleUpstream } from './sample-upstream.ts';
import { explainListenError } from './serve-command.ts';

/** What `odsnap sample --serve` is given. */
export interface MovingCityOptions {
  readonly out: string;
  readonly settings: SampleSettings;
  readonly port: number;
  /** --speed, when given. */
  readonly speed: number | undefined;
}

/** A minute of the city a second of the wall's, when neither --speed nor ODSNAP_CLOCK says otherwise. */
export const DEFAULT_SPEED = 60;

/**
 * `odsnap sample --serve`: the sample city as an upstream whose time moves. Its clock is
 * ODSNAP_CLOCK's, else one starting at the city's "now" (the end of --until) and running --speed
 * times the wall's; its registers hold every day before the clock's, and `odsnap serve` in a
 * process of its own answers them; a front answers the live endpoints as of the clock's minute.
 * It prints the ODSNAP_CLOCK a mirror must be given to share its time, and its address.
 */
export async function serveMovingCity(options: MovingCityOptions, output: Output): Promise<number> {
  const given = process.env.ODSNAP_CLOCK || undefined;
  if (given && options.speed !== undefined) {
    output.err('odsnap sample: ODSNAP_CLOCK sets the clock, speed included; give --speed or ODSNAP_CLOCK, not both\n');
    return 2;
  }
  // A setting without an anchor is anchored here, and printed so: a mirror started later reads the same time.
  const setting = given && !/\banchor=/.test(given) ? `${given.trim()} anchor=${Date.now()}` : given;
  let clock: Clock | undefined;
  try {
    // Read as given first, so that a mistake is shown as it was written.
    if (given) clockFromEnvironment({ ODSNAP_CLOCK: given });
    clock = setting ? clockFromEnvironment({ ODSNAP_CLOCK: setting }) : undefined;
  } catch (error) {
    output.err(`odsnap sample: ${(error as Error).message}\n`);
    return 2;
  }
  const [{ LiveAnswers }, { startLiveFront }, { followRegisterDays, registersUntil }] = await Promise.all([
    import('../scripts/sample/live-answers.ts'),
    import('../scripts/sample/live-front.ts'),
    import('../scripts/sample/register-days.ts'),
  ]);
  const settings = clock ? { ...options.settings, until: registersUntil(clock.now()) } : options.settings;
  const start = historyStart[settings.scale];
  if (clock && settings.until < start) {
    output.err(`odsnap sample: ODSNAP_CLOCK reads ${new Date(clock.now()).toISOString()}, before the ${settings.scale} city's history begins (${start})\n`);
    return 2;
  }
  const progress = new Progress(output);
  if (await holdsCity(options.out, settings)) progress.step(`using the ${settings.scale} sample city until ${settings.until} in ${options.out}`);
  else {
    progress.step(`generating the ${settings.scale} sample city (seed ${settings.seed}, until ${settings.until}) into ${options.out}`);
    const { generateSample } = await import('../scripts/sample/generate.ts');
    await generateSample({ dataDir: options.out, datasets, settings, progress: (text) => progress.update(text) });
  }

  const registers = await serveSampleUpstream(options.out);
  const stopped = new AbortController();
  try {
    // Without ODSNAP_CLOCK, anchored once the city is served: its first minute is the sample's own "now".
    const own = clock ? undefined : { begins: sampleContext(settings).now, speed: options.speed ?? DEFAULT_SPEED, anchor: Date.now() };
    const moving = clock ?? acceleratedClock(own!.begins, own!.speed, own!.anchor);
    const shared = own ? clockSettingOf(own.begins, own.speed, own.anchor) : setting!;
    const front = await startLiveFront({ answers: new LiveAnswers(datasets, settings), clock: moving, behind: registers.url, port: options.port }).catch(
      explainListenError('127.0.0.1', options.port),
    );
    progress.step(
      `the ${settings.scale} sample city moves ${moving.speed} times as fast as the wall (a day every ${formatWall(86_400 / moving.speed)}), from ${new Date(moving.now()).toISOString()}`,
    );
    progress.step(`its live endpoints answer the clock's minute; at each midnight (${city.timeZone}) its registers add the day just ended`);
    progress.step(`point a mirror at it with ODSNAP_CLOCK='${shared}' and ${front.url}; Ctrl-C stops`);
    output.out(`ODSNAP_CLOCK='${shared}'\nODSNAP_UPSTREAM=${front.url}\n`);

    const days = followRegisterDays({
      clock: moving,
      until: settings.until,
      signal: stopped.signal,
      advance: (until) => sampleInProcess(['--out', options.out, '--scale', settings.scale, '--seed', String(settings.seed), '--until', until], stopped.signal),
      added: (until, seconds) => progress.step(`registers until ${until}, added in ${seconds.toFixed(1)} s`),
    });
    const code = await Promise.race([
      untilSignal(stopped.signal).then(() => 0),
      days.then(
        () => 0,
        (error: Error) => {
          output.err(`odsnap sample: the registers could not grow: ${error.message}\n`);
          return 1;
        },
      ),
    ]);
    stopped.abort();
    await front.close();
    return code;
  } finally {
    stopped.abort();
    registers.stop();
  }
}

/** Whether the data directory's current snapshot is the sample city of these settings. */
async function holdsCity(dataDir: string, settings: SampleSettings): Promise<boolean> {
  if ((await currentSnapshotId(dataDir)) === undefined) return false;
  const { source } = (await openSnapshot(dataDir)).manifest;
  return source.kind === 'sample' && source.scale === settings.scale && source.seed === settings.seed && source.until === settings.until;
}

/** Resolves at Ctrl-C or SIGTERM, or when `signal` aborts. */
const untilSignal = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      signal.removeEventListener('abort', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    signal.addEventListener('abort', stop);
  });

const formatWall = (seconds: number) =>
  seconds >= 3600 ? `${(seconds / 3600).toFixed(1)} h` : seconds >= 60 ? `${(seconds / 60).toFixed(1)} min` : `${seconds.toFixed(1)} s`;
