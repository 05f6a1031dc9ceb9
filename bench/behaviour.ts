/**
 * A print of what odsnap does, for a change that must not change it (a restructure): the tiny
 * sample's static tree, every file's sha256; and the server's answers to a corpus (the fidelity
 * corpus, and requests it refuses), each answer's status, type and sha256; for the sample
 * itself, and for a pull of another implementation of the spec (test/fixtures/dialect-upstream.ts).
 *
 *   npx tsx bench/behaviour.ts .cache/behaviour/before.json
 *   npx tsx bench/behaviour.ts .cache/behaviour/after.json .cache/behaviour/before.json
 *
 * With a second file, prints what differs from it and exits 1 if anything does.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { datasets } from '../datasets/index.ts';
import { defaultUntil } from '../datasets/vocabulary/sample.ts';
import { generateSample } from '../scripts/sample/generate.ts';
import { buildStatic } from '../scripts/static/build-static.ts';
import { pull } from '../scripts/pull/pull.ts';
import { PullReport } from '../scripts/pull/report.ts';
import { startServer } from '../server/index.ts';
import { corpusOf } from '../test/fixtures/fidelity.ts';
import { HAND_PICKED, sampleShapes, shapesOf, startDialectUpstream } from '../test/fixtures/dialect-upstream.ts';
import { capture } from '../test/fixtures/output.ts';

type Print = Record<string, string>;

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** Requests every mirror refuses: their problem bodies are behaviour too. */
const REFUSED = [
  '/api/public/rcn/transactions?limit=0',
  '/api/public/rcn/transactions?limit=5&limit=6',
  '/api/public/rcn/properties?bbox=1,2,3',
  '/api/public/citybike/rides?from=2025-07-01',
  '/api/public/citybike/rides?from=2025-07-01&to=2024-07-01',
  '/api/public/bike-counter/counters/nope/readings?from=2025-07-01&to=2025-07-01',
  '/api/public/air-quality/history/x/y?from=2025-07-01&to=2025-07-01&timezone=Mars/Olympus',
  '/api/public/nothing',
];

async function files(root: string): Promise<Print> {
  const print: Print = {};
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else print[relative(root, path)] = sha256(await readFile(path));
    }
  };
  await walk(root);
  return print;
}

async function answers(url: string, requests: readonly string[]): Promise<Print> {
  const print: Print = {};
  for (const request of requests) {
    const response = await fetch(`${url}${request}`);
    const body = (await response.text()).replaceAll(url, '{mirror}');
    print[request] = `${response.status} ${response.headers.get('content-type')} ${sha256(body)}`;
  }
  return print;
}

async function record(): Promise<Record<string, Print>> {
  const work = await mkdtemp(join(tmpdir(), 'odsnap-behaviour-'));
  try {
    const dataDir = join(work, 'sample');
    await generateSample({ dataDir, datasets, settings: { scale: 'tiny', seed: 1, until: defaultUntil } });
    const out = join(work, 'tree');
    await buildStatic({ dataDir, out, datasets });
    const tree = await files(out);

    const sample = await startServer({ dataDir, datasets, port: 0, watch: false });
    const other = await startDialectUpstream(sample.url);
    try {
      const sampleCorpus = [...(await corpusOf({ url: sample.url, publicBase: sample.url, ...sampleShapes })), ...REFUSED];
      const served = await answers(sample.url, sampleCorpus);
      const mirrorDir = join(work, 'mirror');
      const pulled = await pull({
        dataDir: mirrorDir,
        from: other.url,
        datasets,
        report: new PullReport(capture()),
        upstream: { backoffMs: 5, maxBackoffMs: 50, timeoutMs: 5_000 },
      });
      if (!pulled.ok) throw new Error(`the pull of the other implementation failed: ${pulled.failures.join('; ')}`);
      other.calm();
      const mirror = await startServer({ dataDir: mirrorDir, datasets, port: 0, watch: false });
      try {
        const otherCorpus = [...(await corpusOf({ url: other.url, publicBase: other.publicBase, ...shapesOf(HAND_PICKED) })), ...REFUSED];
        return { tree, served, mirrored: await answers(mirror.url, otherCorpus) };
      } finally {
        await mirror.close();
      }
    } finally {
      await other.close();
      await sample.close();
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function differences(now: Record<string, Print>, before: Record<string, Print>): string[] {
  const found: string[] = [];
  for (const part of new Set([...Object.keys(now), ...Object.keys(before)])) {
    const [a, b] = [now[part] ?? {}, before[part] ?? {}];
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (a[key] !== b[key]) found.push(`${part} ${key}: ${b[key] ?? '(none)'} → ${a[key] ?? '(none)'}`);
    }
  }
  return found;
}

const [outPath, beforePath] = process.argv.slice(2);
if (!outPath) {
  console.error('usage: npx tsx bench/behaviour.ts OUT.json [BEFORE.json]');
  process.exit(2);
}
const now = await record();
await mkdir(dirname(outPath), { recursive: true });
await writeFile(outPath, `${JSON.stringify(now, null, 1)}\n`);
const counts = Object.entries(now).map(([part, print]) => `${part} ${Object.keys(print).length}`);
console.log(`recorded ${counts.join(', ')} into ${outPath}`);
if (beforePath && existsSync(beforePath)) {
  const found = differences(now, JSON.parse(await readFile(beforePath, 'utf8')));
  console.log(found.length ? `${found.length} differ from ${beforePath}:\n${found.slice(0, 50).join('\n')}` : `the same as ${beforePath}`);
  process.exit(found.length ? 1 : 0);
}
