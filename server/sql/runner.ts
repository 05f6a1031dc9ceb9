import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ownSpillDir, removeOrphanedSpillDirs, type SpillDir } from '../../core/db/spill.ts';
import { nodeCommand } from '../../core/node-process.ts';
import { Problem } from '../../core/problem.ts';
import { viewedDatasets, type Snapshot, type ViewedDataset } from '../../core/snapshot/read.ts';
import type { Format } from './formats.ts';
import { SqlRefused, type SqlLimits } from './limits.ts';

/**
 * Queries from anyone run in a process of their own, one per served snapshot, so that what one
 * query does cannot reach the v1 API: its memory is capped by the operating system (a value or
 * result past the cap fails in DuckDB, quickly, as a refusal), it runs at a lower CPU priority
 * and on its own threads (the server's thread pool stays free for v1 requests), and a query that
 * will not stop at its deadline is stopped with its process. Results come back as files, so the
 * server never holds one whole; a file is removed as soon as its query ends without answering
 * (refused, failed, stopped, its process gone), and a served one once it is sent.
 */

export type RunnerRequest = { readonly id: number; readonly sql: string; readonly format: Format; readonly limits: SqlLimits; readonly file: string };
/** Stops the query of that id, whose client went away. */
export type RunnerCancel = { readonly cancel: number };
export type RunnerReply =
  | { readonly ready: true }
  | { readonly id: number; readonly file: string; readonly bytes: number }
  | { readonly id: number; readonly refused: string; readonly limit?: SqlRefused['limit']; readonly unexplained?: boolean }
  | { readonly id: number; readonly failed: string };

export interface RunnerOptions {
  /** DuckDB's memory limit in the SQL process, e.g. '128MB'. */
  readonly memoryLimit: string;
  /** The operating system's cap on the process's data (RLIMIT_DATA), in bytes: node, DuckDB and what escapes DuckDB's limit (strings, lists). */
  readonly processMemory: number;
}

export const defaultRunnerOptions: RunnerOptions = { memoryLimit: '96MB', processMemory: 320 * 1024 * 1024 };

/**
 * Where the server's result directory and the SQL processes' spill directories are made
 * (`spill-<host>-<pid>-…`, see core/db/spill.ts): DuckDB's default parent, shared by every process.
 */
export const spillParent = () => join(tmpdir(), 'odsnap');

/** Removes a result file nobody will send; it may never have been written. */
const discard = (file: string) => void rm(file, { force: true }).catch(() => {});

/**
 * How long past its deadline a query may take to stop before its process is stopped. DuckDB
 * notices an interrupt between its steps, within milliseconds, but not inside one (a GLOB or ILIKE
 * pattern that backtracks): short, so that such a query is answered near its deadline too.
 */
const GRACE_MS = 1_000;
const START_TIMEOUT_MS = 60_000;

interface Job {
  readonly request: Omit<RunnerRequest, 'id' | 'limits' | 'file'> & { readonly limits: SqlLimits; readonly deadline: number; readonly signal?: AbortSignal };
  /** Where its process writes its result. */
  readonly file: string;
  resolve(result: { file: string; bytes: number }): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  /** Whether it already ran in a process that ended under it. */
  readonly again: boolean;
}

const entry = new URL('./runner-process.ts', import.meta.url);

/** One SQL process and the queries it runs. */
class SqlProcess {
  readonly jobs = new Map<number, Job>();
  /** The job whose deadline stopped the process, if one did. */
  overdue?: number;
  /** Takes no more queries, and ends with the last it runs (see SqlRunner.settle). */
  retired = false;
  /** An allocation failed in it: DuckDB may not be whole, and may fail later under whichever query it still runs. */
  damaged = false;
  stderr = '';

  constructor(
    readonly child: ChildProcess,
    readonly ready: Promise<void>,
    /** Where it writes results, each in a file named by its job. */
    readonly resultDir: string,
  ) {}

  retire(): void {
    this.retired = true;
    if (!this.jobs.size) this.child.kill('SIGKILL');
  }
}

export class SqlRunner {
  private current?: SqlProcess;
  /** Every process started and not yet ended, the current one, retired ones finishing their queries, and those running a query alone. */
  private readonly live = new Set<SqlProcess>();
  /** The process being started, shared by every query that asks meanwhile (one process, not one each). */
  private starting?: Promise<SqlProcess>;
  private results?: Promise<SpillDir>;
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly snapshot: Snapshot,
    /** The data sets the server was given: the SQL process makes views of their tables. */
    private readonly datasets: readonly ViewedDataset[],
    private readonly options: RunnerOptions = defaultRunnerOptions,
    private readonly log: (line: Record<string, unknown>) => void = () => {},
  ) {}

  /** Starts the SQL process if none runs, and answers it once it takes queries. */
  async ready(): Promise<SqlProcess> {
    this.refuseIfClosed();
    if (!this.current) {
      this.starting ??= this.spawn().finally(() => (this.starting = undefined));
      this.current = await this.starting;
    }
    return this.takingQueries(this.current);
  }

  /**
   * A new process for one query, sent again after its process failed under it: alone there, so
   * whatever failed beside it (a neighbour's memory, a damaged DuckDB) cannot fail it twice.
   */
  private async alone(): Promise<SqlProcess> {
    this.refuseIfClosed();
    const process = await this.spawn();
    process.retired = true;
    return this.takingQueries(process);
  }

  private refuseIfClosed(): void {
    if (this.closed) throw new Problem('service-unavailable', 'the snapshot is being replaced; send the query again', {}, { 'retry-after': '1' });
  }

  /** `process` once it takes queries; a 503 if it could not start. */
  private async takingQueries(process: SqlProcess): Promise<SqlProcess> {
    try {
      await process.ready;
      return process;
    } catch (error) {
      if (this.current === process) this.current = undefined;
      this.log({ event: 'sql-process-failed', error: (error as Error).message });
      throw new Problem('service-unavailable', 'the SQL process could not start; send the query again', {}, { 'retry-after': '5' });
    }
  }

  /**
   * Runs one query; answers the file holding its result in `format` (the caller removes it), or
   * fails with SqlRefused. Aborting `signal` (its client went away) stops the query, and fails it
   * with the abort's reason if it was not sent yet.
   */
  run(sql: string, format: Format, limits: SqlLimits, deadline: number, signal?: AbortSignal): Promise<{ file: string; bytes: number }> {
    return new Promise((resolve, reject) => {
      this.send({ sql, format, limits, deadline, signal }, resolve, reject, false).catch(reject);
    });
  }

  private async send(request: Job['request'], resolve: Job['resolve'], reject: Job['reject'], again: boolean): Promise<void> {
    // Starting a process (a query sent again needs a new one) is not the query's time.
    const starting = Date.now();
    const process = again ? await this.alone() : await this.ready();
    if (again) request = { ...request, deadline: request.deadline + (Date.now() - starting) };
    const timeoutMs = request.deadline - Date.now();
    const gone = request.signal?.aborted;
    if (timeoutMs <= 0 || gone) {
      // A process started for this query alone would otherwise wait for a query that never comes.
      if (again) process.child.kill('SIGKILL');
      throw gone ? request.signal!.reason : new SqlRefused(`the query waited longer than ${request.limits.timeoutMs / 1000} s to run`, 'time');
    }
    const id = this.nextId++;
    const file = join(process.resultDir, `${id}.${request.format}`);
    const timer = this.stopIfStill(process, id, timeoutMs + GRACE_MS, 'a query ran past its deadline and did not stop');
    process.jobs.set(id, { request, file, resolve, reject, timer, again });
    request.signal?.addEventListener('abort', () => this.cancel(process, id), { once: true });
    process.child.send({ id, sql: request.sql, format: request.format, limits: { ...request.limits, timeoutMs }, file } satisfies RunnerRequest);
  }

  /** Stops the process in `ms` if job `id` still runs then: a query that will not stop takes its process with it. */
  private stopIfStill(process: SqlProcess, id: number, ms: number, reason: string): NodeJS.Timeout {
    return setTimeout(() => {
      process.overdue = id;
      this.log({ event: 'sql-process-stopped', reason });
      process.child.kill('SIGKILL');
    }, ms);
  }

  /** Stops a query whose client went away, so that its turn and its process's time go to others. */
  private cancel(process: SqlProcess, id: number): void {
    const job = process.jobs.get(id);
    if (!job || !process.child.connected) return;
    process.child.send({ cancel: id } satisfies RunnerCancel);
    clearTimeout(job.timer);
    job.timer = this.stopIfStill(process, id, GRACE_MS, 'a query whose client went away did not stop');
  }

  private async spawn(): Promise<SqlProcess> {
    this.results ??= ownSpillDir(spillParent());
    const results = await this.results;
    const args = [resolve(this.snapshot.dir), this.snapshot.id, results.path, this.options.memoryLimit, JSON.stringify(viewedDatasets(this.datasets))];
    const [command, commandArgs] = nodeCommand(entry, args, { memoryCap: this.options.processMemory, nice: true });
    const child = spawn(command, commandArgs, { cwd: this.snapshot.dir, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'advanced' });
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error('the SQL process did not start in time'));
      }, START_TIMEOUT_MS);
      child.once('exit', () => {
        clearTimeout(timer);
        reject(new Error(`the SQL process ended before it was ready: ${sqlProcess.stderr.trim().split('\n').at(-1) ?? ''}`));
      });
      child.once('message', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    ready.catch(() => {});
    const sqlProcess = new SqlProcess(child, ready, results.path);
    this.live.add(sqlProcess);
    child.stderr!.on('data', (chunk: Buffer) => (sqlProcess.stderr = (sqlProcess.stderr + chunk.toString()).slice(-2000)));
    child.on('message', (reply: RunnerReply) => this.settle(sqlProcess, reply));
    child.once('exit', (code, signal) => this.ended(sqlProcess, code, signal));
    // Closed while it started: nothing will send it a query.
    if (this.closed) child.kill('SIGKILL');
    return sqlProcess;
  }

  private settle(process: SqlProcess, reply: RunnerReply): void {
    if ('ready' in reply) return;
    const job = process.jobs.get(reply.id);
    if (!job) {
      if ('file' in reply) discard(reply.file);
      return;
    }
    process.jobs.delete(reply.id);
    clearTimeout(job.timer);
    if (!('file' in reply)) discard(job.file);
    const shared = process.jobs.size > 0;
    // DuckDB is not sure to be whole after an allocation failed (a later query crashed such a process): the next query gets a new one.
    // A failure DuckDB does not explain (see SqlCutShort) is taken for one: it is the common cause.
    const outOfMemory = 'refused' in reply && (reply.limit === 'memory' || reply.unexplained === true);
    if (outOfMemory && !process.damaged) {
      process.damaged = true;
      const reason = 'unexplained' in reply && reply.unexplained ? 'a query failed in it without DuckDB saying why' : 'an allocation failed in it';
      this.log({ event: 'sql-process-untrusted', pid: process.child.pid, reason, jobs: process.jobs.size });
    }
    if (outOfMemory && !process.retired) {
      if (this.current === process) this.current = undefined;
      process.retire();
    } else if (process.retired && !process.jobs.size) process.child.kill('SIGKILL');
    if ('file' in reply) job.resolve(reply);
    // Out of memory beside another query, it may be the other's doing: it runs again, once, alone in a new process.
    else if (outOfMemory && shared && !job.again && !this.closed) this.send(job.request, job.resolve, job.reject, true).catch(job.reject);
    else if ('refused' in reply) job.reject(new SqlRefused(reply.refused, reply.limit));
    else job.reject(new Error(reply.failed));
  }

  /** A process ended: its queries fail, and the next query starts another. */
  private ended(process: SqlProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.current === process) this.current = undefined;
    this.live.delete(process);
    if (!this.closed && (!process.retired || process.jobs.size))
      this.log({
        event: 'sql-process-ended',
        pid: process.child.pid,
        code,
        signal,
        jobs: process.jobs.size,
        stderr: process.stderr.trim().split('\n').slice(-3).join(' | ') || undefined,
      });
    // Its DuckDB's spill directory is left behind when it is killed.
    void removeOrphanedSpillDirs(spillParent()).catch(() => {});
    const alone = process.jobs.size === 1;
    for (const [id, job] of process.jobs) {
      clearTimeout(job.timer);
      discard(job.file);
      if (id === process.overdue) job.reject(new SqlRefused(`the query ran longer than its time limit and was stopped`, 'time'));
      // Without a deadline to blame, the process died of memory (the only cap it meets): the query did
      // it if it ran alone in a process where no allocation had failed before.
      else if (alone && !this.closed && process.overdue === undefined && !process.damaged)
        job.reject(
          new SqlRefused(
            `the query needed more memory than a query here may have (${Math.round(this.options.processMemory / 1024 / 1024)} MiB for the SQL process)`,
            'memory',
          ),
        );
      // A query that ran beside the one at fault runs again, once, alone in a new process, within its own deadline.
      else if (!job.again && !this.closed) this.send(job.request, job.resolve, job.reject, true).catch(job.reject);
      else job.reject(new Problem('service-unavailable', 'the SQL process was stopped while this query ran; send it again', {}, { 'retry-after': '1' }));
    }
    process.jobs.clear();
  }

  close(): void {
    this.closed = true;
    for (const process of this.live) process.child.kill('SIGKILL');
    void this.results?.then((results) => results.remove());
  }
}
