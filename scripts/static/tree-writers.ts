import { copyFileSync, linkSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import { VARIANTS } from './variants.ts';
import { namingPath } from './whole-files.ts';

/**
 * The file work of a static build, done on threads of its own: writing a file and its compressed
 * variants, or hard-linking one. Done from the main thread through fs/promises and zlib's async
 * calls, every file cost a dozen hand-offs to libuv's threads (open, write and close three times,
 * two compressions), each waking a sleeping thread: on this project's 2-core VM a fifth of the
 * main thread's time went to those wake-ups, for half a million files. Here the main thread hands
 * over files in batches, and each writer thread compresses and writes a batch with plain
 * synchronous calls.
 */
export type FileJob =
  | {
      readonly kind: 'write';
      /** Absolute path of the file; its variants get their suffixes. */
      readonly target: string;
      readonly data: Uint8Array;
      /** Whether a file may be there already, to unlink first (never written into: it may be a hard link shared with another tree). */
      readonly replace: boolean;
      /** Whether to write the compressed variants too. */
      readonly compress: boolean;
      /** The last bytes of `data` a later build may replace, stored as they are in the variants (see variants.ts). */
      readonly endingBytes: number;
    }
  /**
   * A file of another tree with its ending `was` replaced by `now` (a register page whose total
   * changed): read here, not on the main thread, and its variants made from that file's by
   * replacing their stored ending (see variants.ts), without compressing.
   */
  | { readonly kind: 'reenvelope'; readonly source: string; readonly target: string; readonly was: string; readonly now: string; readonly replace: boolean }
  /**
   * A file of another tree with `insert` put before its ending (a month of a series that went on):
   * read here, and its variants compressed again whole.
   */
  | { readonly kind: 'append'; readonly source: string; readonly target: string; readonly ending: string; readonly insert: string; readonly replace: boolean }
  | { readonly kind: 'link'; readonly source: string; readonly target: string };

export interface FileCounts {
  /** Files written, variants included, and their bytes. */
  written: number;
  bytes: number;
  /** Files hard-linked (or copied across file systems). */
  linked: number;
}

/** Does the jobs, one after the other, synchronously; `madeDirs` remembers the directories made so far. */
export function doFileJobs(jobs: readonly FileJob[], madeDirs: Set<string>): FileCounts {
  const counts: FileCounts = { written: 0, bytes: 0, linked: 0 };
  const ensureDir = (dir: string) => {
    if (madeDirs.has(dir)) return;
    mkdirSync(dir, { recursive: true });
    madeDirs.add(dir);
  };
  const put = (path: string, bytes: Uint8Array, replace: boolean) => {
    if (replace) unlinkIfThere(path);
    try {
      writeFileSync(path, bytes, { flag: 'wx' });
    } catch (error) {
      throw namingPath(path, error);
    }
    counts.written++;
    counts.bytes += bytes.length;
  };
  for (const job of jobs) {
    ensureDir(dirname(job.target));
    if (job.kind === 'link') {
      rmSync(job.target, { force: true });
      try {
        linkSync(job.source, job.target);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
        copyFileSync(job.source, job.target);
      }
      counts.linked++;
      continue;
    }
    if (job.kind === 'reenvelope') {
      const was = Buffer.from(job.was);
      const now = Buffer.from(job.now);
      const data = Buffer.concat([readBefore(job.source, was), now]);
      put(job.target, data, job.replace);
      for (const variant of VARIANTS) {
        const old = readIfThere(job.source + variant.suffix);
        const packed = (old && variant.replaceEnding(old, was, data, now.length)) || variant.compress(data, now.length);
        put(job.target + variant.suffix, packed, job.replace);
      }
      continue;
    }
    if (job.kind === 'append') {
      const ending = Buffer.from(job.ending);
      const data = Buffer.concat([readBefore(job.source, ending), Buffer.from(job.insert), ending]);
      put(job.target, data, job.replace);
      for (const variant of VARIANTS) put(job.target + variant.suffix, variant.compress(data, 0), job.replace);
      continue;
    }
    const data = Buffer.from(job.data.buffer, job.data.byteOffset, job.data.byteLength);
    put(job.target, data, job.replace);
    if (!job.compress) continue;
    for (const variant of VARIANTS) put(job.target + variant.suffix, variant.compress(data, job.endingBytes), job.replace);
  }
  return counts;
}

/** A file's bytes before its `ending`, which it must end with. */
function readBefore(path: string, ending: Buffer): Buffer {
  const body = readFileSync(path);
  if (body.length < ending.length || !body.subarray(body.length - ending.length).equals(ending))
    throw new Error(`${path} does not end as the tree's state says; rebuild with --full`);
  return body.subarray(0, body.length - ending.length);
}

function unlinkIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function readIfThere(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** A batch as the main thread sends it, and the writer thread's answer. */
export interface FileBatch {
  readonly id: number;
  readonly jobs: readonly FileJob[];
}
export type FileBatchDone =
  | { readonly id: number; readonly counts: FileCounts }
  | { readonly id: number; readonly error: { readonly message: string; readonly code?: string } };

/** Jobs per batch, and bytes: few enough hand-offs, small enough batches to keep both threads busy. */
const BATCH_JOBS = 64;
const BATCH_BYTES = 4 * 1024 * 1024;
/** Bytes handed over and not yet written, past which the main thread waits: bounds memory. */
const MOST_BYTES_IN_FLIGHT = 64 * 1024 * 1024;
const MOST_BATCHES_IN_FLIGHT = 4;

interface Thread {
  readonly worker: Worker;
  /** Batches sent and not yet answered, by id: their bytes, and whether they count toward the limit of batches. */
  readonly inFlight: Map<number, { readonly bytes: number; readonly counted: boolean }>;
}

/**
 * The writer threads of one build. `add` queues a job; `room` returns a promise only when the
 * caller should wait (too much handed over and not yet written); `flush` waits for everything
 * added. The first failure is kept: it is thrown by the next `add`, by `room` and by `flush`.
 */
export class TreeWriters {
  private readonly threads: Thread[];
  private batch: FileJob[] = [];
  private transfer: ArrayBuffer[] = [];
  private batchBytes = 0;
  /** Whether the batch holds other jobs than re-envelopes (see full). */
  private batchCounted = false;
  private nextId = 0;
  private failure: Error | undefined;
  /** Called when the threads have room again, or failed. */
  private wake: (() => void)[] = [];

  constructor(
    private readonly onDone: (counts: FileCounts) => void,
    threads = Math.min(4, availableParallelism()),
  ) {
    this.threads = Array.from({ length: Math.max(1, threads) }, () => this.startThread());
  }

  /** Queues a job; a written file's bytes are taken over (the caller must not use them again). */
  add(job: FileJob): void {
    if (this.failure) throw this.failure;
    this.batch.push(job);
    if (job.kind !== 'reenvelope') this.batchCounted = true;
    if (job.kind === 'write') {
      this.transfer.push(job.data.buffer as ArrayBuffer);
      this.batchBytes += job.data.byteLength;
    }
    if (this.batch.length >= BATCH_JOBS || this.batchBytes >= BATCH_BYTES) this.send();
  }

  /** A promise to wait for when the threads have too much to do; undefined when they have room. */
  room(): Promise<void> | undefined {
    if (this.failure) throw this.failure;
    return this.full() ? this.untilRoom() : undefined;
  }

  /** Waits until every job added so far is done. */
  async flush(): Promise<void> {
    this.send();
    while (!this.failure && this.threads.some((thread) => thread.inFlight.size > 0)) await new Promise<void>((resolve) => this.wake.push(resolve));
    if (this.failure) throw this.failure;
  }

  /** Stops the threads (after a flush, or to give up). */
  async close(): Promise<void> {
    this.failure ??= new Error('the tree writers were closed');
    await Promise.all(this.threads.map((thread) => thread.worker.terminate()));
    this.wakeAll();
  }

  private startThread(): Thread {
    const worker = new Worker(new URL('./tree-writer-thread.js', import.meta.url));
    const thread: Thread = { worker, inFlight: new Map() };
    worker.on('message', (done: FileBatchDone) => {
      thread.inFlight.delete(done.id);
      if ('error' in done) this.failure ??= Object.assign(new Error(done.error.message), { code: done.error.code });
      else this.onDone(done.counts);
      this.wakeAll();
    });
    worker.on('error', (error) => {
      this.failure ??= error;
      this.wakeAll();
    });
    worker.on('exit', (code) => {
      this.failure ??= new Error(`a tree writer thread stopped (exit code ${code})`);
      this.wakeAll();
    });
    return thread;
  }

  private send(): void {
    if (!this.batch.length) return;
    // The thread with the fewest batches still to do (links carry no bytes), then the fewest bytes.
    const busier = (a: Thread, b: Thread) => a.inFlight.size - b.inFlight.size || bytesOf(a) - bytesOf(b);
    const thread = this.threads.reduce((a, b) => (busier(a, b) > 0 ? b : a));
    const id = this.nextId++;
    thread.inFlight.set(id, { bytes: this.batchBytes, counted: this.batchCounted });
    thread.worker.postMessage({ id, jobs: this.batch } satisfies FileBatch, this.transfer);
    this.batch = [];
    this.transfer = [];
    this.batchBytes = 0;
    this.batchCounted = false;
  }

  /**
   * Whether the main thread should wait: too many bytes or batches handed over. Batches of
   * re-envelopes alone do not count: they hold a few hundred bytes a page, at most one job per
   * page of a register, and the main thread goes on carrying files while the threads read and
   * write them.
   */
  private full(): boolean {
    let batches = 0;
    for (const thread of this.threads) for (const batch of thread.inFlight.values()) if (batch.counted) batches++;
    const bytes = this.threads.reduce((n, thread) => n + bytesOf(thread), 0);
    return bytes >= MOST_BYTES_IN_FLIGHT || batches >= MOST_BATCHES_IN_FLIGHT * this.threads.length;
  }

  private async untilRoom(): Promise<void> {
    while (!this.failure && this.full()) await new Promise<void>((resolve) => this.wake.push(resolve));
    if (this.failure) throw this.failure;
  }

  private wakeAll(): void {
    const waiting = this.wake;
    this.wake = [];
    for (const resolve of waiting) resolve();
  }
}

/** Bytes a thread has been handed and not yet written. */
const bytesOf = (thread: Thread) => {
  let bytes = 0;
  for (const batch of thread.inFlight.values()) bytes += batch.bytes;
  return bytes;
};

/**
 * Bytes of `content` a writer thread can take over: a buffer with a memory of its own. A given
 * buffer is copied (the caller may still hold it), and so is text short enough for Node to encode
 * into a slice of its shared pool.
 */
export function ownBytes(content: Buffer | string): Uint8Array {
  if (typeof content === 'string') {
    const encoded = Buffer.from(content);
    if (encoded.byteOffset === 0 && encoded.byteLength === encoded.buffer.byteLength) return encoded;
    content = encoded;
  }
  return Uint8Array.prototype.slice.call(content);
}
