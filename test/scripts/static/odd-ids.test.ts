import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasets } from '../../../datasets/index.ts';
import { fileNameOf, valueOfFileName } from '../../../datasets/answers/static-files.ts';
import { buildStatic, type BuildResult } from '../../../scripts/static/build-static.ts';
import { INDEX } from '../../../core/published-tree.ts';
import { startFaultProxy, type FaultProxy } from '../../fixtures/fault-proxy.ts';
import { pullFrom, tempDir } from '../../fixtures/pull.ts';
import { raw } from '../../fixtures/raw-http.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';

/** Record ids an upstream may send that are no file name as they are, and one that none can stand for. */
const ODD = ['../../x', 'a/b', 'a%2Fb', '.hidden', 'back\\slash', 'tab\there'];
const TOO_LONG = 'x'.repeat(300);

describe('file names for path values', () => {
  it.each([...ODD, 'PL.1234.567', 'zażółć gęślą jaźń', '..', '.'])('stands for %j by a safe name that reads back as it', (value) => {
    const name = fileNameOf(value);
    expect(name).not.toMatch(/[/\\\0]|^\./);
    expect(valueOfFileName(name)).toBe(value);
  });

  it('leaves ordinary ids as they are', () => {
    for (const id of ['PL.PZGIK.EGIB.1234.2024-05', 'abc-123', 'zażółć']) expect(fileNameOf(id)).toBe(id);
  });
});

describe('a tree of records whose ids are no file names', () => {
  let upstream: TestServer;
  let proxy: FaultProxy;
  let dir: string;
  let built: BuildResult;
  let served: TestServer;

  beforeAll(async () => {
    upstream = await startTestServer();
    // The first page of transactions, its first ids replaced, and each link to match.
    const withId = (item: { uri: string; transactionGmlId: string }, id: string) => ({
      ...item,
      uri: item.uri.replace(/[^/]*$/, encodeURIComponent(id)),
      transactionGmlId: id,
    });
    proxy = await startFaultProxy(upstream.url, ({ url }) =>
      url.pathname === '/api/public/rcn/transactions' && url.searchParams.get('offset') === '0' && url.searchParams.has('limit')
        ? {
            kind: 'rewrite',
            body: (page: { items: { uri: string; transactionGmlId: string }[] }) => ({
              ...page,
              items: page.items.map((item, i) => (i < ODD.length + 1 ? withId(item, [...ODD, TOO_LONG][i]!) : item)),
            }),
          }
        : undefined,
    );
    dir = await tempDir('odd-ids');
    expect((await pullFrom(proxy.url, join(dir, 'data'))).ok).toBe(true);
    built = await buildStatic({ dataDir: join(dir, 'data'), out: join(dir, 'dist'), datasets });
    served = await startTestServer({ dataDir: join(dir, 'data'), tree: undefined });
  });
  afterAll(async () => {
    await served?.close();
    await proxy?.close();
    await upstream?.close();
  });

  it('writes each under its safe name, inside the tree, as the server answers it, linked from its list page', async () => {
    const items = join(dir, 'dist', 'api', 'public', 'rcn', 'transactions');
    for (const id of ODD) {
      const file = join(items, `${fileNameOf(id)}.json`);
      expect(dirname(file)).toBe(items);
      const fromTree = JSON.parse(await readFile(file, 'utf8'));
      expect(fromTree.transactionGmlId).toBe(id);
      // The server refuses control characters in a path value outright.
      if (/[\x00-\x1f]/.test(id)) continue;
      const fromServer = await raw(`${served.url}/api/public/rcn/transactions/${encodeURIComponent(id)}`);
      expect(fromServer.status, `${id}: ${fromServer.body.toString().slice(0, 300)}`).toBe(200);
      expect(JSON.parse(fromServer.body.toString()).transactionGmlId).toBe(id);
    }
    // The list links each to its file: a static host decodes the URL once, to the safe name.
    const page = JSON.parse(await readFile(join(dir, 'dist', 'api', 'public', 'rcn', 'transactions.json'), 'utf8'));
    const linked = page.items.slice(0, ODD.length).map((item: { uri: string }) => decodeURIComponent(item.uri));
    expect(linked).toEqual(ODD.map((id) => `/api/public/rcn/transactions/${fileNameOf(id)}.json`));
    // Nothing climbed out of the tree.
    expect(await readdir(dir)).toEqual(expect.arrayContaining(['data', 'dist']));
    expect((await readdir(dir)).filter((name) => !['data', 'dist', '.dist-trees'].includes(name))).toEqual([]);
  });

  it('leaves out the one no file name can stand for, counted in the summary and the index', async () => {
    expect(built.leftOut).toBe(1);
    expect(built.warnings.join('\n')).toMatch(/1 file left out.*\/api\/public\/rcn\/transactions\/\{transactionGmlId\}: "x{79}.*more than 240 bytes/);
    const index = JSON.parse(await readFile(join(dir, 'dist', INDEX), 'utf8'));
    expect(index.leftOut).toMatchObject({ files: 1 });
  });
});
