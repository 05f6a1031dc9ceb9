import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INDEX } from '../../../core/published-tree.ts';
import { datasets } from '../../../datasets/index.ts';
import { openSnapshot, type Snapshot } from '../../../core/snapshot/read.ts';
import { buildStatic } from '../../../scripts/static/build-static.ts';
import { staticContext } from '../../../scripts/static/static-context.ts';
import { startDialectUpstream, type DialectUpstream } from '../../fixtures/dialect-upstream.ts';
import { pullFrom, tempDir } from '../../fixtures/pull.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';
import { expectTreeAnswersAsServer, readJson } from '../../fixtures/tree-parity.ts';

/**
 * The static tree of a mirror of an upstream that defaults to pages of 20 and puts keys of its own
 * in its envelopes (test/fixtures/dialect-upstream.ts): files stand for the requests a client of
 * that upstream sends, and hold what the mirror's server answers them.
 */
let sample: TestServer;
let other: DialectUpstream;
let mirror: TestServer;
let snapshot: Snapshot;
let tree: string;

beforeAll(async () => {
  sample = await startTestServer();
  other = await startDialectUpstream(sample.url);
  const dataDir = await tempDir('mirror-tree');
  await pullFrom(other.url, dataDir);
  snapshot = await openSnapshot(dataDir);
  mirror = await startTestServer({ dataDir });
  const out = join(await tempDir('mirror-tree-out'), 'dist');
  await buildStatic({ dataDir, out, datasets });
  tree = await realpath(out);
}, 120_000);
afterAll(async () => {
  await mirror?.close();
  await other?.close();
  await sample?.close();
});

describe('the static tree of a mirror', () => {
  it('records what the upstream defaults to and adds to its envelopes, links relative to its public address', () => {
    expect(snapshot.manifest.source).toMatchObject({ kind: 'pull', upstream: other.url, publicBase: other.publicBase });
    const meta = '{"apiVersion":"1.4","documentation":"{base_url}/docs/api","licence":"https://creativecommons.org/licenses/by/4.0/"}';
    expect(snapshot.manifest.endpoints?.['/api/public/rcn/transactions']).toEqual({
      defaults: { limit: '20' },
      envelope: { meta: JSON.parse(meta) },
      // The envelope as written: its keys in order, the spec's values left to the mirror, its own as written.
      template: { text: `{"items":[],"pagination":{"limit":null,"offset":null,"count":null,"total":null,"next":null},"meta":${meta}}` },
      next: { form: 'absolute', order: 'asked' },
    });
    expect(snapshot.manifest.endpoints?.['/api/public/air-quality/live/{deviceId}']?.envelope).toBeDefined();
  });

  it('pages the register lists as the upstream does without limit, and says so', async () => {
    const index = await readJson(tree, INDEX);
    const transactions = index.datasets[0].endpoints.find((e: { path: string }) => e.path === '/api/public/rcn/transactions');
    expect(transactions).toMatchObject({ standsFor: 'GET /api/public/rcn/transactions?limit=20&offset={offset}', first: '/api/public/rcn/transactions.json' });
    expect(index.about).toContain('register lists are pages of 20 at /offset/{offset}.json');
    const first = await readJson(tree, '/api/public/rcn/transactions.json');
    expect(first.items).toHaveLength(20);
    expect(first.pagination).toMatchObject({ limit: 20, offset: 0, next: '/api/public/rcn/transactions/offset/20.json' });
    expect(first.meta.documentation).toBe('/docs/api');
  });

  it('answers, file by file, what the mirror answers for the request each file stands for', async () => {
    const context = staticContext(datasets, '', (endpoint) => snapshot.manifest.endpoints?.[endpoint.fullPath]?.defaults ?? {});
    expect(await expectTreeAnswersAsServer(tree, mirror, context, 4)).toBeGreaterThan(60);
  });
});
