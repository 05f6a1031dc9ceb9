import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The code's layers, bottom up (docs/code-layout.md): a folder imports only
 * folders below it. The engines share a layer, so none of them imports another.
 */
const layers: readonly (readonly string[])[] = [['core'], ['datasets'], ['scripts', 'server', 'site'], ['cli'], ['bin'], ['test'], ['bench']];

const root = fileURLToPath(new URL('..', import.meta.url));
const SOURCE = /\.(ts|mts|js|mjs|astro)$/;
/** `from '…'`, `import '…'` and `import('…')` with a relative specifier. */
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)(['"])(\.{1,2}\/[^'"]+)\1/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name.startsWith('.')) return [];
    return statSync(join(root, path)).isDirectory() ? sourceFiles(path) : SOURCE.test(name) ? [path] : [];
  });
}

/** Every file's relative imports, as paths from the repository's root. */
function importGraph(folders: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of folders.flatMap(sourceFiles)) {
    const text = readFileSync(join(root, file), 'utf8');
    const targets = [...text.matchAll(IMPORT)].map((match) => normalize(join(dirname(file), match[2]!)));
    graph.set(file, targets);
  }
  return graph;
}

const folderOf = (path: string) => path.split('/')[0]!;
const layerOf = (folder: string) => layers.findIndex((layer) => layer.includes(folder));
const folders = layers.flat().filter((folder) => existsSync(join(root, folder)));

/** Imports from a folder to another of its own layer or above, as `file -> target`. */
function upwardImports(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const upward: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) {
      const [from, to] = [folderOf(file), folderOf(target)];
      if (from !== to && layerOf(to) >= layerOf(from)) upward.push(`${file} -> ${target}`);
    }
  }
  return upward;
}

/** Pairs of folders that import each other, each once: `a b`. */
function mutualFolders(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const pairs = new Set<string>();
  for (const [file, targets] of graph)
    for (const target of targets) if (folderOf(file) !== folderOf(target)) pairs.add(`${folderOf(file)} ${folderOf(target)}`);
  return [...pairs].filter((pair) => pair < pair.split(' ').reverse().join(' ') && pairs.has(pair.split(' ').reverse().join(' ')));
}

/** Every file reached by following imports from the files of a folder. */
function reachedFrom(graph: ReadonlyMap<string, readonly string[]>, folder: string): Set<string> {
  const reached = new Set<string>();
  const visit = (file: string) => {
    if (reached.has(file)) return;
    reached.add(file);
    for (const target of graph.get(file) ?? []) visit(target);
  };
  for (const file of graph.keys()) if (folderOf(file) === folder) visit(file);
  return reached;
}

/** Loops of files importing each other (type-only imports too), each as its files in the order they import, starting with the least. */
function fileCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles = new Map<string, string[]>();
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const target of graph.get(file) ?? []) {
      if (state.get(target) === 'open') {
        const loop = path.slice(path.indexOf(target));
        const start = loop.indexOf([...loop].sort()[0]!);
        const key = [...loop.slice(start), ...loop.slice(0, start)];
        cycles.set(key.join(' -> '), key);
      } else if (!state.has(target)) visit(target);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return [...cycles.values()];
}

/** A kind of answer's own folder (`datasets/answers/page/…`): only the registry and the kind's own files may import it. */
const KIND_FILE = /^datasets\/answers\/[^/]+\//;

/** Imports of a kind's own files from outside datasets/answers (engines, data sets, tests), as `file -> target`. */
function kindsReachedAround(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const around: string[] = [];
  for (const [file, targets] of graph) {
    if (file.startsWith('datasets/answers/') || file.startsWith('test/')) continue;
    for (const target of targets) if (KIND_FILE.test(target)) around.push(`${file} -> ${target}`);
  }
  return around;
}

/** The string tables of the site's two languages: long by nature, one line per text. */
const STRING_TABLES = new Set(['site/i18n/en.ts', 'site/i18n/pl.ts']);
const MOST_LINES = 300;

/** Files of more than MOST_LINES lines, string tables aside, as `file: lines`. */
function overLong(lines: ReadonlyMap<string, number>): string[] {
  return [...lines].filter(([file, count]) => count > MOST_LINES && !STRING_TABLES.has(file)).map(([file, count]) => `${file}: ${count}`);
}

describe('the layers of the code', () => {
  const graph = importGraph(folders);

  it('reads every import of every source file', () => {
    expect(graph.size).toBeGreaterThan(200);
    for (const [file, targets] of graph) for (const target of targets) expect(existsSync(join(root, target)), `${file} imports ${target}`).toBe(true);
  });

  it(`keeps every source file to ${MOST_LINES} lines, the string tables aside`, () => {
    const lines = new Map([...graph.keys()].map((file) => [file, readFileSync(join(root, file), 'utf8').split('\n').length - 1]));
    expect(overLong(lines)).toEqual([]);
  });

  it('has every file in a folder of a known layer', () => {
    for (const file of graph.keys()) expect(layerOf(folderOf(file)), file).toBeGreaterThanOrEqual(0);
  });

  it('imports only downward: no folder imports one of its own layer or above', () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it('has no two folders that import each other', () => {
    expect(mutualFolders(graph)).toEqual([]);
  });

  it('has no files that import each other, directly or around a loop, type-only imports included', () => {
    expect(fileCycles(graph).map((loop) => loop.join(' -> '))).toEqual([]);
  });

  it("reaches a kind of answer's own files only through the kinds' registry (datasets/answers/index.ts)", () => {
    expect(kindsReachedAround(graph)).toEqual([]);
  });

  it('never lets the site reach the server, directly or through another folder', () => {
    expect([...reachedFrom(graph, 'site')].filter((file) => folderOf(file) === 'server')).toEqual([]);
  });

  it('sees an arrow up, two folders importing each other, and a path from the site to the server where there are', () => {
    const wrong = new Map([
      ['core/a.ts', ['cli/b.ts']],
      ['cli/b.ts', ['core/a.ts']],
      ['site/c.ts', ['datasets/d.ts']],
      ['datasets/d.ts', ['server/e.ts']],
      ['scripts/f.ts', ['server/e.ts']],
    ]);
    expect(upwardImports(wrong)).toEqual(['core/a.ts -> cli/b.ts', 'datasets/d.ts -> server/e.ts', 'scripts/f.ts -> server/e.ts']);
    expect(mutualFolders(wrong)).toEqual(['cli core']);
    expect([...reachedFrom(wrong, 'site')]).toContain('server/e.ts');
    expect(fileCycles(wrong).map((loop) => loop.join(' -> '))).toEqual(['cli/b.ts -> core/a.ts']);
    const looped = new Map([
      ['x/a.ts', ['x/b.ts']],
      ['x/b.ts', ['x/c.ts']],
      ['x/c.ts', ['x/a.ts']],
    ]);
    expect(fileCycles(looped)).toEqual([['x/a.ts', 'x/b.ts', 'x/c.ts']]);
    expect(
      overLong(
        new Map([
          ['site/i18n/pl.ts', 400],
          ['server/app.ts', 301],
          ['server/routes.ts', 300],
        ]),
      ),
    ).toEqual(['server/app.ts: 301']);
    expect(kindsReachedAround(new Map([['server/g.ts', ['datasets/answers/page/scan.ts', 'datasets/answers/index.ts']]]))).toEqual([
      'server/g.ts -> datasets/answers/page/scan.ts',
    ]);
  });
});
