import { createWriteStream } from 'node:fs';
import { stat, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { readManifest } from '../../core/snapshot/manifest.ts';
import type { Snapshot, ViewedDataset } from '../../core/snapshot/read.ts';
import { toArrow, toCsvChunks, toJsonChunks, type Format } from './formats.ts';
import { SqlRefused, SqlSandbox, type SqlLimits } from './sandbox.ts';
import type { RunnerReply, RunnerRequest } from './runner.ts';

/**
 * The server's SQL process (see runner.ts): one snapshot's sandbox, confined, answering queries
 * sent over IPC with a file holding the result, in `resultDir`. Arguments: the snapshot's
 * directory (absolute) and id, the result directory, DuckDB's memory limit, and the data sets the
 * server was given as JSON (their names and tables': see viewedDatasets).
 */

const [snapshotDir, snapshotId, resultDir, memoryLimit, viewed] = process.argv.slice(2) as [string, string, string, string, string];
const datasets = JSON.parse(viewed) as ViewedDataset[];
const reply = (message: RunnerReply) => process.send!(message);
// The server going away takes its SQL process with it.
process.on('disconnect', () => process.exit(0));

// Nothing derived is kept: the sandbox has only views, and spills under the system's temporary directory.
const snapshot: Snapshot = { id: snapshotId, dir: snapshotDir, cacheDir: snapshotDir, manifest: await readManifest(snapshotDir) };
const sandbox = await SqlSandbox.open(snapshot, datasets, { config: { memory_limit: memoryLimit, threads: '1' }, confined: true, resultDir });

async function answer(path: string, sql: string, format: Format, limits: SqlLimits): Promise<number> {
  if (format === 'parquet') {
    await sandbox.copy(sql, { path, format: 'parquet' }, limits);
    const { size } = await stat(path);
    if (size > limits.maxBytes) throw new SqlRefused(`the result is larger than ${Math.round(limits.maxBytes / 1024 / 1024)} MiB; select fewer rows or columns`, 'bytes');
    return size;
  }
  if (format === 'arrow') {
    const bytes = await toArrow(await sandbox.run(sql, limits));
    await writeFile(path, bytes);
    return bytes.length;
  }
  // JSON and CSV are written as the rows come, so only a batch is held at a time.
  const file = createWriteStream(path);
  let bytes = 0;
  try {
    await sandbox.stream(sql, limits, async (columns, batches) => {
      for await (const chunk of format === 'json' ? toJsonChunks(columns, batches) : toCsvChunks(columns, batches)) {
        bytes += Buffer.byteLength(chunk);
        if (!file.write(chunk)) await once(file, 'drain');
      }
    });
  } finally {
    file.end();
    await once(file, 'close');
  }
  return bytes;
}

process.on('message', (request: RunnerRequest) => {
  const path = `${resultDir}/${request.id}.${request.format}`;
  answer(path, request.sql, request.format, request.limits).then(
    (bytes) => reply({ id: request.id, file: path, bytes }),
    (error: unknown) => {
      if (error instanceof SqlRefused) reply({ id: request.id, refused: error.message, limit: error.limit });
      else reply({ id: request.id, failed: (error as Error).message });
    },
  );
});
reply({ ready: true });
