import { createWriteStream, statSync } from 'node:fs';
import { stat, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { readManifest } from '../../core/snapshot/manifest.ts';
import type { Snapshot, ViewedDataset } from '../../core/snapshot/read.ts';
import { toArrow, toCsvChunks, toJsonChunks, type Format } from './formats.ts';
import { resultTooLarge, SqlCutShort, SqlRefused, type SqlLimits } from './limits.ts';
import { SqlSandbox } from './sandbox.ts';
import type { RunnerCancel, RunnerReply, RunnerRequest } from './runner.ts';

/**
 * The server's SQL process (see runner.ts): one snapshot's sandbox, confined, answering queries
 * sent over IPC with a file holding the result, in `resultDir` (the server names each file and
 * removes it). Arguments: the snapshot's directory (absolute) and id, the result directory,
 * DuckDB's memory limit, and the data sets the server was given as JSON (their names and tables':
 * see viewedDatasets).
 */

const [snapshotDir, snapshotId, resultDir, memoryLimit, viewed] = process.argv.slice(2) as [string, string, string, string, string];
const datasets = JSON.parse(viewed) as ViewedDataset[];
const reply = (message: RunnerReply) => process.send!(message);
// The server going away takes its SQL process with it.
process.on('disconnect', () => process.exit(0));

// Nothing derived is kept: the sandbox has only views, and spills under the system's temporary directory.
const snapshot: Snapshot = { id: snapshotId, dir: snapshotDir, cacheDir: snapshotDir, manifest: await readManifest(snapshotDir) };
const sandbox = await SqlSandbox.open(snapshot, datasets, { config: { memory_limit: memoryLimit, threads: '1' }, confined: true, resultDir });

/** How often the size of a Parquet file DuckDB is writing is looked at. */
const WATCH_MS = 10;
/** Rows in a Parquet row group: what DuckDB writes at once, so what a file may pass the byte limit by before it is stopped. */
const ROW_GROUP_ROWS = 2048;

/**
 * Writes the result to `path`, never far past limits.maxBytes: JSON, CSV and Arrow are refused
 * before a write would pass it; Parquet, which DuckDB writes a row group at a time, is stopped
 * once the file is seen past it.
 */
async function answer(path: string, sql: string, format: Format, limits: SqlLimits, stopping: AbortController): Promise<number> {
  if (format === 'parquet') {
    const watch = setInterval(() => {
      if (sizeOf(path) > limits.maxBytes) stopping.abort(resultTooLarge(limits.maxBytes));
    }, WATCH_MS);
    try {
      await sandbox.copy(sql, { path, format: 'parquet', rowGroupRows: ROW_GROUP_ROWS }, limits, undefined, stopping.signal);
    } finally {
      clearInterval(watch);
    }
    const { size } = await stat(path);
    if (size > limits.maxBytes) throw resultTooLarge(limits.maxBytes);
    return size;
  }
  if (format === 'arrow') {
    const bytes = await toArrow(await sandbox.run(sql, limits, stopping.signal));
    if (bytes.length > limits.maxBytes) throw resultTooLarge(limits.maxBytes);
    await writeFile(path, bytes);
    return bytes.length;
  }
  // JSON and CSV are written as the rows come, so only a batch is held at a time.
  const file = createWriteStream(path);
  let bytes = 0;
  try {
    await sandbox.stream(
      sql,
      limits,
      async (columns, batches) => {
        for await (const chunk of format === 'json' ? toJsonChunks(columns, batches) : toCsvChunks(columns, batches)) {
          bytes += Buffer.byteLength(chunk);
          if (bytes > limits.maxBytes) throw resultTooLarge(limits.maxBytes);
          if (!file.write(chunk)) await once(file, 'drain');
        }
      },
      stopping.signal,
    );
  } finally {
    file.end();
    await once(file, 'close');
  }
  return bytes;
}

/** The file's size, 0 while it is not there. */
function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** What stops each query running, by its id. */
const running = new Map<number, AbortController>();

process.on('message', (message: RunnerRequest | RunnerCancel) => {
  if ('cancel' in message) {
    running.get(message.cancel)?.abort(new SqlRefused('the query was stopped: its client went away'));
    return;
  }
  const request = message;
  const stopping = new AbortController();
  running.set(request.id, stopping);
  answer(request.file, request.sql, request.format, request.limits, stopping)
    .then(
      (bytes) => reply({ id: request.id, file: request.file, bytes }),
      (error: unknown) => {
        if (error instanceof SqlRefused) reply({ id: request.id, refused: error.message, limit: error.limit, unexplained: error instanceof SqlCutShort });
        else reply({ id: request.id, failed: (error as Error).message });
      },
    )
    .finally(() => running.delete(request.id));
});
reply({ ready: true });
