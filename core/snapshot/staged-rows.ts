import { closeSync, createReadStream, openSync, readFileSync, readSync, renameSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { compareKeys, keyOf, type SortKey } from '../row-order.ts';

/**
 * Rows staged as JSON lines, one file per partition, put in order before DuckDB turns them into
 * Parquet. Sorting here rather than in DuckDB keeps memory to an index of the rows: a DuckDB
 * ORDER BY carries every column, JSON payloads included, through its sort, and fails under a
 * tight memory limit.
 */

interface Line {
  readonly key: SortKey;
  readonly offset: number;
  /** With its newline. */
  readonly length: number;
}

/** Files up to this size are sorted in memory; larger ones line by line from disk. */
const IN_MEMORY_BYTES = 64 * 1024 * 1024;

/** Rewrites a staged file with its lines ordered by `columns`. */
export async function sortStagedRows(path: string, columns: readonly string[], inMemoryBytes = IN_MEMORY_BYTES): Promise<void> {
  if (statSync(path).size <= inMemoryBytes) sortInMemory(path, columns);
  else await sortOnDisk(path, columns);
}

function sortInMemory(path: string, columns: readonly string[]): void {
  const data = readFileSync(path);
  const lines: Line[] = [];
  for (let offset = 0; offset < data.length; ) {
    const end = data.indexOf(10, offset);
    lines.push({ key: keyOf(JSON.parse(data.toString('utf8', offset, end)), columns), offset, length: end + 1 - offset });
    offset = end + 1;
  }
  lines.sort((a, b) => compareKeys(a.key, b.key));
  const sorted = Buffer.allocUnsafe(data.length);
  let used = 0;
  for (const line of lines) used += data.copy(sorted, used, line.offset, line.offset + line.length);
  writeFileSync(path, sorted);
}

/** Rewrites a staged file with `fill` applied to each row, line by line. */
export async function fillStagedRows(path: string, fill: (row: Record<string, unknown>) => void): Promise<void> {
  const filled = `${path}.filled`;
  const output = openSync(filled, 'w');
  try {
    let buffer: string[] = [];
    let bytes = 0;
    for await (const text of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
      const row = JSON.parse(text) as Record<string, unknown>;
      fill(row);
      const line = JSON.stringify(row);
      buffer.push(line);
      bytes += line.length;
      if (bytes >= 4 * 1024 * 1024) {
        writeSync(output, buffer.join('\n') + '\n');
        buffer = [];
        bytes = 0;
      }
    }
    if (buffer.length) writeSync(output, buffer.join('\n') + '\n');
  } finally {
    closeSync(output);
  }
  renameSync(filled, path);
}

async function sortOnDisk(path: string, columns: readonly string[]): Promise<void> {
  const lines: Line[] = [];
  let offset = 0;
  for await (const text of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    const length = Buffer.byteLength(text) + 1;
    lines.push({ key: keyOf(JSON.parse(text), columns), offset, length });
    offset += length;
  }
  lines.sort((a, b) => compareKeys(a.key, b.key));
  const sorted = `${path}.sorted`;
  const input = openSync(path, 'r');
  const output = openSync(sorted, 'w');
  try {
    const buffer = Buffer.alloc(4 * 1024 * 1024);
    let used = 0;
    for (const line of lines) {
      if (used + line.length > buffer.length) {
        writeSync(output, buffer, 0, used);
        used = 0;
      }
      if (line.length > buffer.length) {
        const row = Buffer.alloc(line.length);
        readSync(input, row, 0, line.length, line.offset);
        writeSync(output, row);
        continue;
      }
      readSync(input, buffer, used, line.length, line.offset);
      used += line.length;
    }
    writeSync(output, buffer, 0, used);
  } finally {
    closeSync(input);
    closeSync(output);
  }
  renameSync(sorted, path);
}
