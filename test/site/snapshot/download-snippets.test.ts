import { execFile } from 'node:child_process';
import { chmod, realpath, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../../core/published-tree.ts';
import { datasets } from '../../../datasets/index.ts';
import { buildStatic } from '../../../scripts/static/build-static.ts';
import { canBuildSite } from '../../../scripts/static/site.ts';
import { staticTree } from '../../../server/static-tree.ts';
import type { CatalogueTable } from '../../../site/snapshot/tree-snapshot.ts';
import { python, pythonScript, runPythonSource } from '../../fixtures/python.ts';
import { startTestServer, type TestServer } from '../../fixtures/server.ts';
import { tempDir, tinyDataDir } from '../../fixtures/tiny.ts';
import { readJson } from '../../fixtures/tree-parity.ts';

/**
 * The code the downloads page gives, run as a user runs it after copying it from the page: the
 * tree is built with the site and an absolute base on a loopback server, as on a CDN, so every
 * snippet names real URLs. Python runs the pandas, pyarrow and CSV snippets; DuckDB runs the
 * per-table SQL and, through a stand-in for its CLI (not installable here; see
 * fixtures/python/duckdb_cli.py), the one line that opens the whole snapshot; sha256sum checks
 * the checksums.
 */

/** Runs a command with text on its standard input; its standard output, or a failure with its exit code. */
function runWithInput(command: string, args: string[], input: string, options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, { ...options, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${command} ${args.join(' ')}: ${error.message}\n${stderr}`)) : resolve(stdout),
    );
    child.stdin!.end(input);
  });
}
const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&#x27;': "'" };

/** The snippets of a page in its order, by their data-snippet name, as text a user copies. */
function snippetsOf(html: string): { name: string; code: string }[] {
  return [...html.matchAll(/<figure class="code" data-snippet="([^"]+)"[^>]*>[\s\S]*?<code>([\s\S]*?)<\/code>/g)].map(([, name, code]) => ({
    name: name!,
    code: code!.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (entity) => ENTITIES[entity]!),
  }));
}

describe.skipIf((!python || !canBuildSite()) && !process.env.CI)('the downloads page’s snippets, run', () => {
  let server: TestServer;
  let tree: string;
  let tables: CatalogueTable[];
  let snippets: { name: string; code: string }[];
  /** The snippets of one kind, one per table, in the catalogue's order. */
  const byTable = (name: string) => snippets.filter((snippet) => snippet.name === name).map((snippet, i) => ({ table: tables[i]!, code: snippet.code }));

  beforeAll(async () => {
    const out = join(await tempDir('snippets'), 'dist');
    const served = staticTree(out);
    server = await startTestServer({ tree: served });
    await buildStatic({ dataDir: tinyDataDir(), out, datasets, base: server.url, site: true });
    served.clear();
    tree = await realpath(out);
    tables = (await readJson(tree, `/${CATALOGUE}`)).tables;
    const page = await fetch(`${server.url}/downloads/`);
    expect(page.status).toBe(200);
    snippets = snippetsOf(await page.text());
  }, 300_000);
  afterAll(() => server?.close());

  it('gives every table its snippets, naming the files by their URLs on the served tree', () => {
    for (const name of ['duckdb', 'pandas', 'pyarrow', 'csv', 'checksums']) expect(byTable(name), name).toHaveLength(tables.length);
    expect(snippets.filter((snippet) => snippet.name === 'duckdb-snapshot')).toHaveLength(1);
    for (const { code, table } of byTable('csv')) expect(code, table.sqlName).toContain(`${server.url}/downloads/csv/${table.dataset}/${table.table}/`);
  });

  it('opens every table in DuckDB with the one line it shows', async () => {
    const [line] = snippets.filter((snippet) => snippet.name === 'duckdb-snapshot').map((snippet) => snippet.code);
    expect(line).toBe(`curl -sO ${server.url}/downloads/odsnap.sql && duckdb -init odsnap.sql`);
    const bin = await tempDir('duckdb-cli');
    await writeFile(join(bin, 'duckdb'), `#!/bin/sh\nexec ${JSON.stringify(python)} ${JSON.stringify(pythonScript('duckdb_cli.py'))} "$@"\n`);
    await chmod(join(bin, 'duckdb'), 0o755);
    const home = await tempDir('duckdb-user');
    const queries = tables.map((table) => `SELECT count(*) FROM ${table.sqlName}`).join('\n');
    const output = await runWithInput('bash', ['-c', line!], `${queries}\n`, { cwd: home, env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
    expect(
      output
        .trim()
        .split('\n')
        .map((row) => JSON.parse(row)[0][0]),
    ).toEqual(tables.map((table) => table.rows));
  });

  /**
   * Ends the interpreter once the counts are out: pyarrow's thread pool now and then aborts its
   * teardown ("terminate called without an active exception", one full run in four here) after the
   * snippets have run and printed; what is judged is what they read, not how pyarrow exits.
   */
  const EXIT_WHEN_DONE = 'import os, sys\nsys.stdout.flush()\nos._exit(0)';

  it('reads every table with the pandas, pyarrow and CSV snippets, giving the catalogue’s rows', async () => {
    for (const kind of ['pandas', 'pyarrow', 'csv']) {
      const programs = byTable(kind);
      // One Python for all tables: each snippet stands alone and leaves its table in a variable named as the view.
      const source = [
        ...programs.map(({ code }) => code),
        `import json\nprint(json.dumps({${programs.map(({ table }) => `${JSON.stringify(table.sqlName)}: len(${table.sqlName})`).join(', ')}}))`,
        EXIT_WHEN_DONE,
      ].join('\n\n');
      const counts = JSON.parse(await runPythonSource(source));
      expect(counts, kind).toEqual(Object.fromEntries(tables.map((table) => [table.sqlName, table.rows])));
    }
  });

  it("reads every table with the DuckDB snippet's SQL", async () => {
    const programs = byTable('duckdb');
    const source = [
      'import json, sys',
      `sys.path.insert(0, ${JSON.stringify(dirname(pythonScript('duckdb_over_http.py')))})`,
      'from duckdb_over_http import connect',
      'connection = connect()',
      `snippets = ${JSON.stringify(Object.fromEntries(programs.map(({ table, code }) => [table.sqlName, code])))}`,
      'print(json.dumps({name: connection.execute(f"SELECT count(*) FROM ({sql.rstrip().rstrip(\';\')})").fetchone()[0] for name, sql in snippets.items()}))',
    ].join('\n');
    expect(JSON.parse(await runPythonSource(source))).toEqual(Object.fromEntries(tables.map((table) => [table.sqlName, table.rows])));
  });

  it('gives checksums that sha256sum -c accepts in the downloads directory', async () => {
    for (const { code, table } of byTable('checksums')) {
      const checked = await runWithInput('sha256sum', ['-c', '--strict', '-'], `${code}\n`, { cwd: join(tree, 'downloads') });
      expect(checked.trim().split('\n'), table.sqlName).toEqual(table.files.map((file) => `${file.url.split('/downloads/')[1]}: OK`));
    }
  });
});
