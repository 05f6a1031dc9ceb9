import { closeSync, openSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { compareKeys, keyOf, type SortKey } from '../row-order.ts';

/**
 * Rows staged as JSON lines, one file per partition, put in order before DuckDB turns them into
 * Parquet. Sorting here rather than in DuckDB keeps memory bounded: a DuckDB ORDER BY carries
 * every column, JSON payloads included, through its sort, and fails under a tight memory limit.
 * A file larger than a run is sorted a run at a time, each run written to disk, and the runs
 * merged line by line: memory holds one run, or a chunk of each run (a thirty-second of the
 * partition at most), never the whole partition nor an index of all its rows. The work yields to
 * the event loop between runs and chunks: `odsnap start` serves from the process that pulls.
 */

interface Line {
  readonly key: SortKey;
  readonly start: number;
  /** Past its newline. */
  readonly end: number;
}

/** Bytes of lines sorted in memory at once: a file up to this size in one go, a larger one in runs of it. */
const RUN_BYTES = 32 * 1024 * 1024;
/** Bytes read from each run at a time while merging, and parsed between turns of the event loop. */
const MERGE_CHUNK_BYTES = 1024 * 1024;

export interface SortOptions {
  /** Bytes of lines sorted in memory at once (RUN_BYTES unless a test makes runs small). */
  readonly runBytes?: number;
  /** Of lines whose keys are equal, only the first is kept: the columns identify a row. */
  readonly distinct?: boolean;
}

/**
 * Rewrites a staged file with its lines ordered by `columns`; lines of equal keys keep their
 * order, or with `distinct` only the first of them is kept. Returns how many lines were dropped.
 */
export async function sortStagedRows(path: string, columns: readonly string[], options: SortOptions = {}): Promise<number> {
  const { runBytes = RUN_BYTES, distinct = false } = options;
  if (statSync(path).size <= runBytes) {
    const sorted = await sortedLines(await readFile(path), columns, distinct);
    await writeFile(path, sorted.data);
    return sorted.dropped;
  }
  const runs = await writeRuns(path, columns, runBytes, distinct);
  try {
    // The runs hold every line, so the merge writes over the file: two copies on disk, not three. A
    // merge that fails leaves the partition incomplete, as any failed write of a staged snapshot.
    return runs.dropped + (await mergeRuns(runs.paths, path, columns, distinct));
  } finally {
    for (const run of runs.paths) rmSync(run, { force: true });
  }
}

/**
 * Whole lines (each ending in a newline), sorted by key; equal keys keep their order (Array.sort is
 * stable). Reading the keys is most of the work (each line is parsed whole): it yields every
 * chunk's worth, so that a run takes the event loop for a chunk at a time, not for the whole run.
 */
async function sortedLines(data: Buffer, columns: readonly string[], distinct: boolean): Promise<{ data: Buffer; dropped: number }> {
  const lines: Line[] = [];
  for (let start = 0, parsed = 0; start < data.length; ) {
    const newline = data.indexOf(10, start);
    const end = newline === -1 ? data.length : newline + 1;
    lines.push({ key: keyOf(JSON.parse(data.toString('utf8', start, end)), columns), start, end });
    parsed += end - start;
    start = end;
    if (parsed >= MERGE_CHUNK_BYTES) {
      parsed = 0;
      await yieldToEventLoop();
    }
  }
  lines.sort((a, b) => compareKeys(a.key, b.key));
  // Gathering the lines in order reads all over the run: it yields as parsing does.
  const sorted = Buffer.allocUnsafe(data.length);
  let used = 0;
  let since = 0;
  let dropped = 0;
  let kept: SortKey | undefined;
  for (const line of lines) {
    if (distinct && kept && compareKeys(kept, line.key) === 0) {
      dropped++;
      continue;
    }
    kept = line.key;
    sorted.set(data.subarray(line.start, line.end), used);
    used += line.end - line.start;
    since += line.end - line.start;
    if (since >= MERGE_CHUNK_BYTES) {
      since = 0;
      await yieldToEventLoop();
    }
  }
  return { data: sorted.subarray(0, used), dropped };
}

/** Sorts the file a run of whole lines at a time, each into a file of its own; returns their paths in the file's order, and the lines `distinct` dropped. */
async function writeRuns(path: string, columns: readonly string[], runBytes: number, distinct: boolean): Promise<{ paths: string[]; dropped: number }> {
  const runs: string[] = [];
  let dropped = 0;
  const input = openSync(path, 'r');
  try {
    let buffer = Buffer.allocUnsafe(runBytes);
    let held = 0;
    for (;;) {
      const read = readSync(input, buffer, held, buffer.length - held, null);
      held += read;
      const last = buffer.lastIndexOf(10, held - 1);
      if (read > 0 && last === -1 && held === buffer.length) {
        // One line longer than a run: it is read whole.
        const larger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(larger, 0, 0, held);
        buffer = larger;
        continue;
      }
      const whole = read === 0 ? held : last + 1;
      if (whole > 0) {
        const run = `${path}.run-${runs.length}`;
        // Written off the event loop (which turns meanwhile): a run is tens of megabytes.
        const sorted = await sortedLines(buffer.subarray(0, whole), columns, distinct);
        await writeFile(run, sorted.data);
        dropped += sorted.dropped;
        runs.push(run);
      }
      if (read === 0) return { paths: runs, dropped };
      buffer.copy(buffer, 0, whole, held);
      held -= whole;
    }
  } finally {
    closeSync(input);
  }
}

/** A sorted run (or any file of lines in order) read back a chunk at a time, one line ahead. */
export class RunReader {
  private readonly fd: number;
  private buffer: Buffer;
  private start = 0;
  private held = 0;
  private ended = false;
  /** The line ahead, with its newline, and its key; undefined once the run is read. */
  line: Buffer | undefined;
  key: SortKey = [];
  /** The line ahead, parsed. */
  row: Record<string, unknown> = {};

  constructor(
    path: string,
    private readonly columns: readonly string[],
    /** The run's place in the file: of equal keys, the earlier run's line goes first. */
    readonly index: number,
  ) {
    this.fd = openSync(path, 'r');
    // Small runs (the last, or many of a file of long lines) take no more than they hold.
    this.buffer = Buffer.allocUnsafe(Math.min(MERGE_CHUNK_BYTES, statSync(path).size + 1));
    this.advance();
  }

  advance(): void {
    for (;;) {
      const newline = this.buffer.indexOf(10, this.start);
      if (newline !== -1 && newline < this.held) {
        this.line = this.buffer.subarray(this.start, newline + 1);
        this.start = newline + 1;
        this.row = JSON.parse(this.line.toString('utf8')) as Record<string, unknown>;
        this.key = keyOf(this.row, this.columns);
        return;
      }
      if (this.ended) {
        // Every staged row ends in a newline: bytes after the last one are a row cut short, never dropped quietly.
        if (this.held > this.start) throw new Error(`a staged run ends in ${this.held - this.start} bytes with no newline`);
        this.line = undefined;
        closeSync(this.fd);
        return;
      }
      // Keep the part line, make room (a line longer than the buffer doubles it), read on.
      const rest = this.held - this.start;
      const target = rest * 2 > this.buffer.length ? Buffer.allocUnsafe(this.buffer.length * 2) : this.buffer;
      this.buffer.copy(target, 0, this.start, this.held);
      this.buffer = target;
      this.start = 0;
      this.held = rest;
      const read = readSync(this.fd, this.buffer, this.held, this.buffer.length - this.held, null);
      this.held += read;
      if (read === 0) this.ended = true;
    }
  }
}

/**
 * Merges sorted runs into one file: a heap of each run's line ahead, the least taken each time.
 * With `distinct`, a line whose key equals the last one written is dropped; returns how many were.
 */
async function mergeRuns(runs: readonly string[], target: string, columns: readonly string[], distinct: boolean): Promise<number> {
  const before = (a: RunReader, b: RunReader) => {
    const order = compareKeys(a.key, b.key);
    return order < 0 || (order === 0 && a.index < b.index);
  };
  const heap: RunReader[] = [];
  const siftDown = (at: number) => {
    for (;;) {
      const [left, right] = [2 * at + 1, 2 * at + 2];
      let least = at;
      if (left < heap.length && before(heap[left]!, heap[least]!)) least = left;
      if (right < heap.length && before(heap[right]!, heap[least]!)) least = right;
      if (least === at) return;
      [heap[at], heap[least]] = [heap[least]!, heap[at]!];
      at = least;
    }
  };
  for (const [index, run] of runs.entries()) {
    const reader = new RunReader(run, columns, index);
    if (reader.line) heap.push(reader);
  }
  for (let at = Math.floor(heap.length / 2) - 1; at >= 0; at--) siftDown(at);
  const output = openSync(target, 'w');
  try {
    const out = Buffer.allocUnsafe(4 * 1024 * 1024);
    let used = 0;
    let dropped = 0;
    let written: SortKey | undefined;
    while (heap.length) {
      const least = heap[0]!;
      const line = least.line!;
      if (distinct && written !== undefined && compareKeys(written, least.key) === 0) dropped++;
      else {
        if (used + line.length > out.length) {
          writeSync(output, out, 0, used);
          used = 0;
          await yieldToEventLoop();
        }
        if (line.length > out.length) writeSync(output, line);
        else used += line.copy(out, used);
      }
      written = least.key;
      least.advance();
      if (!least.line) {
        heap[0] = heap[heap.length - 1]!;
        heap.pop();
      }
      siftDown(0);
    }
    writeSync(output, out, 0, used);
    return dropped;
  } finally {
    closeSync(output);
  }
}

/** A turn of the event loop, so that a server in the same process answers between chunks of work. */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
