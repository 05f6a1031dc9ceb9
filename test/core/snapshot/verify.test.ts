import { cp, mkdtemp, open, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { verifySnapshot } from '../../../core/snapshot/verify.ts';
import { capture } from '../../fixtures/output.ts';
import { tinyDataDir, tinySnapshot } from '../../fixtures/tiny.ts';

let dataDir: string;
let snapshotDir: string;
let files: string[];

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'odsnap-verify-'));
  await cp(tinyDataDir(), dataDir, { recursive: true, verbatimSymlinks: true });
  const snapshot = await tinySnapshot();
  snapshotDir = join(dataDir, 'snapshots', snapshot.id);
  files = Object.values(snapshot.manifest.datasets).flatMap((d) => Object.values(d.tables).flatMap((t) => t.files.map((f) => f.path)));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

async function flipByte(path: string, position: number) {
  const handle = await open(path, 'r+');
  const byte = Buffer.alloc(1);
  await handle.read(byte, 0, 1, position);
  byte[0] = byte[0]! ^ 0xff;
  await handle.write(byte, 0, 1, position);
  await handle.close();
}

describe('verifySnapshot', () => {
  it('finds nothing wrong with an untouched snapshot', async () => {
    const report = await verifySnapshot(snapshotDir);
    expect(report.mismatches).toEqual([]);
    expect(report.files).toBe(files.length);
  });

  it('names a file with one flipped byte, a missing file and a file the manifest does not list', async () => {
    await flipByte(join(snapshotDir, files[0]!), 100);
    await unlink(join(snapshotDir, files[1]!));
    await writeFile(join(snapshotDir, 'rcn', 'stray.parquet'), 'x');
    const report = await verifySnapshot(snapshotDir);
    expect(report.mismatches).toEqual([`${files[0]}: sha256 differs from the manifest`, `${files[1]}: missing`, 'rcn/stray.parquet: not in the manifest']);
  });
});

describe('odsnap verify', () => {
  it('exits 0 and says all files match', async () => {
    const output = capture();
    expect(await main(['verify', '--data', dataDir], output)).toBe(0);
    expect(output.err()).toContain('all match the manifest');
  });

  it('exits 1 and prints each mismatch on its own line', async () => {
    await flipByte(join(snapshotDir, files[2]!), 50);
    await unlink(join(snapshotDir, files[3]!));
    const output = capture();
    expect(await main(['verify', '--data', dataDir], output)).toBe(1);
    expect(output.err()).toContain(`mismatch: ${files[2]}: sha256 differs from the manifest\n`);
    expect(output.err()).toContain(`mismatch: ${files[3]}: missing\n`);
  });
});
