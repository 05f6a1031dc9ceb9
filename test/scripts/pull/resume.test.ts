import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Random } from '../../../datasets/vocabulary/random.ts';
import { datasets } from '../../../datasets/index.ts';
import { openSnapshot, type Snapshot } from '../../../core/snapshot/read.ts';
import { startFaultProxy, type FaultProxy } from '../../fixtures/fault-proxy.ts';
import { capturedTables, differences, tempDir } from '../../fixtures/pull.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';
import { tinySnapshot } from '../../fixtures/tiny.ts';

/**
 * `odsnap pull` as its own process, killed with SIGKILL at random moments (while crawling and
 * while building the snapshot), then run again until it finishes.
 */

const bin = join(import.meta.dirname, '../../../bin/odsnap.js');

let upstream: TestServer;
let counter: FaultProxy;

interface Run {
  readonly code: number | null;
  readonly requests: number;
  readonly stderr: string;
}

/** Runs a pull; `killWhen` sees the data directory and stderr so far and says when to SIGKILL it. */
function runPull(dataDir: string, killWhen?: (stderr: string) => boolean): Promise<Run> {
  const before = counter.requests.length;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'pull', '--from', counter.url, '--data', dataDir], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    child.stderr.on('data', (chunk) => (stderr += chunk));
    if (killWhen) timer = setInterval(() => killWhen(stderr) && child.kill('SIGKILL'), 5);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(timer);
      resolve({ code, requests: counter.requests.length - before, stderr });
    });
  });
}

const journalUnits = (dataDir: string) => {
  const file = join(dataDir, '.pull', 'journal.ndjson');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').length - 1 : 0;
};

let fresh: Run;
let freshSnapshot: Snapshot;
let resumedRuns: Run[];
let resumedSnapshot: Snapshot;

beforeAll(async () => {
  upstream = await startTestServer();
  counter = await startFaultProxy(upstream.url);

  const freshDir = await tempDir('fresh');
  fresh = await runPull(freshDir);
  freshSnapshot = await openSnapshot(freshDir);

  // The tiny city takes about 450 units of work: kill early, then about midway.
  const dataDir = await tempDir('resumed');
  const random = new Random('kill points');
  const points = [random.int(5, 80), random.int(120, 300)];
  resumedRuns = [];
  for (const point of points) resumedRuns.push(await runPull(dataDir, () => journalUnits(dataDir) >= point));
  // Once more while the snapshot is being written.
  let buildingSince = 0;
  const delay = random.int(0, 300);
  resumedRuns.push(
    await runPull(dataDir, (stderr) => {
      if (!stderr.includes('building the snapshot')) return false;
      buildingSince ||= Date.now();
      return Date.now() - buildingSince >= delay;
    }),
  );
  resumedRuns.push(await runPull(dataDir));
  resumedSnapshot = await openSnapshot(dataDir);
}, 120_000);

afterAll(async () => {
  await counter.close();
  await upstream.close();
});

describe('a pull killed at random moments, then run again', () => {
  it('was killed each time, and finished on the last run', () => {
    expect(fresh.code).toBe(0);
    expect(resumedRuns.slice(0, -1).map((run) => run.code)).toEqual([null, null, null]);
    expect(resumedRuns.at(-1)!.code).toBe(0);
  });

  it('resumed without fetching finished work again', () => {
    const last = resumedRuns.at(-1)!;
    expect(last.stderr).toContain('"event":"resuming"');
    expect(last.requests).toBeLessThan(fresh.requests);
    // Work lost to a kill is at most what was in flight.
    const all = resumedRuns.reduce((sum, run) => sum + run.requests, 0);
    expect(all).toBeLessThan(fresh.requests * 1.2);
  });

  it('ends with the same rows as the sample', async () => {
    expect(await differences(await tinySnapshot(), resumedSnapshot)).toEqual([]);
  });

  it('writes the same files as an uninterrupted pull, byte for byte', () => {
    for (const dataset of datasets) {
      const skip = capturedTables(dataset);
      for (const name of Object.keys(dataset.tables)) {
        if (skip.has(name)) continue;
        const files = (s: Snapshot) => s.manifest.datasets[dataset.name]!.tables[name]!.files.map((f) => [f.path, f.sha256]);
        expect(files(resumedSnapshot), `${dataset.name}/${name}`).toEqual(files(freshSnapshot));
      }
    }
  });
});
