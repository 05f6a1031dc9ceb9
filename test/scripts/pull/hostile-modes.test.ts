import { existsSync } from 'node:fs';
import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentSnapshotId } from '../../../core/snapshot/layout.ts';
import { openSnapshot, type Snapshot } from '../../../core/snapshot/read.ts';
import { serveCheck } from '../../../cli/pull-command.ts';
import type { PullLimits } from '../../../scripts/pull/limits.ts';
import type { PullResult } from '../../../scripts/pull/pull.ts';
import { serveDatabasePath } from '../../../server/serve-database.ts';
import { startHostileProxy, type HostileMode, type HostileProxy } from '../../fixtures/hostile-proxy.ts';
import { differences, pullFrom, tempDir } from '../../fixtures/pull.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';
import { tinySnapshot } from '../../fixtures/tiny.ts';

/** Pull against a proxy that turns hostile in one way at a time (test/fixtures/hostile-proxy.ts); hostile.test.ts has the answers without end. */

let upstream: TestServer;
const proxies: HostileProxy[] = [];
beforeAll(async () => (upstream = await startTestServer()));
afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  await upstream.close();
});

describe('a hostile upstream, mode by mode (test/fixtures/hostile-proxy.ts)', () => {
  /**
   * Each mode is pulled into a copy of a data directory whose current snapshot was pulled from the
   * same proxy, healthy: then the proxy turns healthy again and the same pull is run once more,
   * which must not be wedged by what the hostile one left, and must end with the sample's rows.
   */
  interface Mode {
    readonly mode: HostileMode;
    readonly datasets: readonly string[];
    readonly limits?: Partial<PullLimits>;
    /** Pull everything again, not only what is new since the template. */
    readonly full?: boolean;
    /** Check the new snapshot can be served, building its serving database as the CLI does. */
    readonly servable?: boolean;
    /** The pull fails with this; else it is fine, and `check` says what it made. */
    readonly failure?: RegExp;
    /** A failure leaves the journal to resume (a network fault), rather than set aside. */
    readonly resumable?: boolean;
    /** Either outcome is right (whether a server can open the snapshot is the server's): `check` when it is fine, `failure` when not. */
    readonly either?: boolean;
    readonly check?: (pulled: PullResult & { log: string }, snapshot: Snapshot) => Promise<void> | void;
    /** How long the hostile pull may take, in seconds; 30 unless said. */
    readonly seconds?: number;
  }

  const transactions = (snapshot: Snapshot) => snapshot.manifest.datasets.rcn!.tables.transactions!.rows;
  const modes: Mode[] = [
    { mode: 'healthy', datasets: ['rcn', 'citybike'], check: async (_, snapshot) => expect(await differences(snapshot, await tinySnapshot())).toEqual([]) },
    { mode: 'rides-endless', datasets: ['citybike'], limits: { maxPages: 20 }, failure: /rides\?from=.*: still a next page after 20 pages \(--max-pages\)/ },
    {
      // Before, the probe held every page of its one-day window, as many as --max-pages (10,000).
      mode: 'rides-probe-endless',
      datasets: ['citybike'],
      // All the windows: rides across a midnight to ask about are in them.
      full: true,
      check: (pulled) => expect(pulled.log).toMatch(/"event":"range not asked".*still a next page after 100 pages, as many as a probe of the range asks/),
    },
    { mode: 'rides-cycle', datasets: ['citybike'], failure: /page=3.*: page 3 starts with the row page 1 started with; the upstream does not page/ },
    {
      mode: 'total-billion',
      datasets: ['rcn'],
      failure: /transactions\?limit=100&offset=0.*: pagination.total is 1000000000, more than the 2000000 records a list may hold \(--max-records\)/,
    },
    {
      mode: 'total-within-cap',
      datasets: ['rcn'],
      limits: { maxJournalBytes: 4 * 1024 * 1024 },
      failure: /the journal would grow past 4 MiB \(--max-journal\)/,
    },
    {
      // Packed, its answers pass --max-journal many times over before they fill it.
      mode: 'total-within-cap',
      datasets: ['rcn'],
      limits: { maxAnswerBytes: 4 * 1024 * 1024 },
      failure: /the upstream's answers would take more than 4 MiB once read \(--max-answers\)/,
    },
    { mode: 'total-absurd', datasets: ['rcn'], failure: /pagination.total is 1000000000000000, more than the 2000000 records/ },
    { mode: 'total-negative', datasets: ['rcn'], failure: /pagination.total is -5, not a whole number of records/ },
    { mode: 'total-fraction', datasets: ['rcn'], failure: /pagination.total is 198.5, not a whole number of records/ },
    { mode: 'total-short', datasets: ['rcn'], failure: /100 items at offset 0 of a list whose pagination.total is 5/ },
    // Before, the three rounds it takes were journalled, and every pull after replayed them and failed again.
    { mode: 'total-inflated', datasets: ['rcn'], failure: /198 distinct items after 3 rounds, the upstream reports 1000/ },
    {
      mode: 'duplicate-keys',
      datasets: ['rcn'],
      failure: /rcn\/transactions: 198 of 198 records quarantined \(100%\), more than --max-quarantine 1% allows; the first because .*grossPrice/,
    },
    {
      mode: 'one-invalid',
      datasets: ['rcn'],
      check: (pulled, snapshot) => {
        expect(pulled.quarantined).toBe(1);
        expect(transactions(snapshot)).toBe(197);
      },
    },
    {
      mode: 'huge-value',
      datasets: ['rcn'],
      servable: true,
      check: async (pulled, snapshot) => {
        expect(pulled.quarantined).toBe(1);
        expect(transactions(snapshot)).toBe(197);
        const [entry] = (await readFile(join(snapshot.dir, snapshot.manifest.quarantine!.rcn!.path), 'utf8'))
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line));
        expect(entry.reason).toMatch(/its document_creator is 10 MiB, more than the 1 MiB a value may hold \(--max-value\)/);
        // Not kept in the quarantine either.
        expect(snapshot.manifest.quarantine!.rcn!.bytes).toBeLessThan(64 * 1024);
        expect(existsSync(await serveDatabasePath(snapshot))).toBe(true);
      },
    },
    {
      // A hundred values of a megabyte, each under the cap: the server's database (built in 128 MB) did not hold them.
      mode: 'many-big-values',
      datasets: ['rcn'],
      servable: true,
      either: true,
      seconds: 240,
      failure: /the new snapshot \S+ cannot be served, so it was not made current: could not build the serving database/,
      check: async (_, snapshot) => expect(existsSync(await serveDatabasePath(snapshot))).toBe(true),
    },
    // A network fault like any other, but an hour of waiting before: the journal stays, and the next pull resumes it.
    {
      mode: 'retry-after-600',
      datasets: ['rcn'],
      resumable: true,
      failure: /offset=100.*answered 429.*; it asks to be tried again in 600 s, past the 300 s a request waits in all \(--max-wait\)/,
    },
  ];

  let proxy: HostileProxy;
  let template: string;
  beforeAll(async () => {
    proxy = await startHostileProxy(upstream.url);
    proxies.push(proxy);
    template = await tempDir('hostile-template');
    expect((await pullFrom(proxy.url, template)).ok).toBe(true);
  });

  it.each(modes)(
    '$mode',
    async (row) => {
      const dataDir = await tempDir(`hostile-${row.mode}`);
      await cp(template, dataDir, { recursive: true, verbatimSymlinks: true });
      const before = await currentSnapshotId(dataDir);
      const options = {
        only: row.datasets,
        full: row.full,
        ...(row.limits ? { limits: row.limits } : {}),
        // Answers of 50 MB may take more than 5 s on a loaded machine.
        ...(row.servable ? { servable: serveCheck(dataDir), upstream: { timeoutMs: 60_000 } } : {}),
      };
      proxy.mode = row.mode;
      // Bounded in requests whatever the pull does: past these the proxy answers 503 to everything.
      proxy.hostile = 0;
      proxy.budget = 400;
      let pulled: Awaited<ReturnType<typeof pullFrom>>;
      try {
        pulled = await pullFrom(proxy.url, dataDir, options);
      } finally {
        proxy.mode = 'healthy';
      }
      expect(pulled.seconds).toBeLessThan(row.seconds ?? 30);
      expect(proxy.hostile).toBeLessThan(proxy.budget);
      if (row.failure && !(row.either && pulled.ok)) {
        expect(pulled.ok).toBe(false);
        expect(pulled.failures.join('\n')).toMatch(row.failure);
        expect(await currentSnapshotId(dataDir)).toBe(before);
        expect(existsSync(join(dataDir, '.pull-set-aside', 'journal.ndjson'))).toBe(!row.resumable);
        if (!row.resumable) expect(pulled.log).toMatch(/"event":"journal set aside"/);
      } else {
        expect(pulled.failures).toEqual([]);
        expect(pulled.ok).toBe(true);
        expect(await currentSnapshotId(dataDir)).not.toBe(before);
        await row.check?.(pulled, await openSnapshot(dataDir));
      }

      // The same pull, the upstream healthy again: nothing left behind wedges it.
      const healed = await pullFrom(proxy.url, dataDir, options);
      expect(healed.failures).toEqual([]);
      expect(healed.ok).toBe(true);
      if (row.resumable) expect(healed.log).toMatch(/"event":"resuming"/);
      expect(await differences(await openSnapshot(dataDir), await tinySnapshot())).toEqual([]);
    },
    300_000,
  );
});
