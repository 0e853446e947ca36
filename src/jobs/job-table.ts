/**
 * Background commands (docs/std-tools.md, "Background commands"): programs the `bash` tool started with
 * `run_in_background`, which outlive the call that started them. They run here, on awl's main thread, in a
 * process group of their own (inside the sandbox when it is on), and stop when awl ends: `stopAll` at a normal
 * exit, and the leftover watchdog (process-marks.ts) however awl ends.
 *
 * Output: stdout and stderr interleaved, all of it saved to a file in the run's spill folder (up to
 * {@link JOB_FILE_CAP} bytes; the rest is counted, not kept), and the last {@link UNREAD_CAP} bytes not read yet
 * kept in memory for the next read. A job printing without end costs a bounded file and bounded memory; once both
 * are full it waits on its writes until the next read.
 */
import type { ChildProcess } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { ProcessSandbox, SandboxedCommand } from "../extensions/lua/types.js";
import { connectRelay, sandboxStdio } from "../extensions/lua/sandbox-stdio.js";
import { markedEnv, newProcessMark, watchForLeftovers } from "../extensions/lua/process-marks.js";
import type { SecretScrubber } from "../util/secrets.js";
import { childProcess } from "../util/lazy-builtin.js";

/** Most jobs running at once; another start is refused, saying so. */
export const MAX_RUNNING_JOBS = 16;
/** A job's output file keeps at most this many bytes. */
export const JOB_FILE_CAP = 64 * 1024 * 1024;
/** Output not read yet beyond this is dropped from memory, oldest first (the file still has it). */
export const UNREAD_CAP = 32 * 1024;
/** How long a stopped job's group has after SIGTERM before SIGKILL. */
const STOP_GRACE_MS = 2000;
/** After the job exited, how long its pipes may stay open (held by a program that left its group) before it counts as ended. */
const EXIT_GRACE_MS = 500;

export interface Job {
  /** `job1`, `job2`, … in the order started. */
  id: string;
  command: string;
  /** The process (group) id; 0 when it did not start. */
  pid: number;
  started: Date;
  /** Undefined while it runs; then how it ended: `exit code 0`, `killed by SIGTERM`, `stopped`, `cannot run …`. */
  ended?: string;
  /** Whole output file (undefined when it could not be opened: nothing is saved). */
  file?: string;
  /** Bytes it printed in all. */
  bytes: number;
}

interface Running extends Job {
  child?: ChildProcess;
  fd?: number;
  saved: number;
  unread: Buffer[];
  unreadBytes: number;
  /** Bytes of output dropped from the unread part since the last read. */
  skipped: number;
  stopRequested: boolean;
  /** Told of new output or the end. */
  wake: Set<() => void>;
}

export interface JobTableOptions {
  /** The environment programs get (credentials withheld). */
  env: NodeJS.ProcessEnv;
  /** The run's spill folder: output files go in its `jobs/`. */
  spillDir: string;
  sandbox?: ProcessSandbox;
  /** Replaces known API keys in what is read back (the file is written raw, private to the user). */
  scrub?: SecretScrubber;
}

/** What a read gives: the new output, whether some was skipped, and the state. */
export interface JobRead {
  job: Job;
  text: string;
  skipped: number;
  /** The pattern waited for matched (absent: none was given). */
  matched?: boolean;
}

export class JobTable {
  private readonly jobs = new Map<string, Running>();
  private readonly mark = newProcessMark();
  private next = 1;

  constructor(private readonly options: JobTableOptions) {}

  /** Every job of this run, in the order started. */
  list(): Job[] {
    return [...this.jobs.values()];
  }

  /** The jobs still running. */
  running(): Job[] {
    return this.list().filter((j) => j.ended === undefined);
  }

  /** Starts `command` with bash in `cwd`; the job, or why not (the limit). */
  start(command: string, cwd: string): Job | { error: string } {
    const running = this.running();
    if (running.length >= MAX_RUNNING_JOBS) {
      return { error: `${running.length} background jobs are running, the most awl runs at once (${MAX_RUNNING_JOBS}): stop one with bash_stop first (${running.map((j) => j.id).join(", ")})` };
    }
    const id = `job${this.next++}`;
    const job: Running = { id, command, pid: 0, started: new Date(), bytes: 0, saved: 0, unread: [], unreadBytes: 0, skipped: 0, stopRequested: false, wake: new Set() };
    this.jobs.set(id, job);
    this.openFile(job);
    const argv = [shell(), "-c", `exec 2>&1\n${command}`];
    const wrapped: SandboxedCommand = this.options.sandbox ? this.options.sandbox.wrap(argv, cwd) : { argv, fds: [] };
    watchForLeftovers();
    const env = { ...markedEnv(this.options.env, this.mark, 0), PAGER: "cat", GIT_PAGER: "cat", GIT_TERMINAL_PROMPT: "0", GIT_EDITOR: "true" };
    let child: ChildProcess;
    try {
      child = childProcess().spawn(wrapped.argv[0]!, wrapped.argv.slice(1), { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe", ...sandboxStdio(wrapped)] });
      connectRelay(wrapped, child);
    } catch (e) {
      this.end(job, `cannot run ${argv[0]}: ${(e as Error).message}`);
      return job;
    } finally {
      for (const fd of wrapped.fds) closeSync(fd);
    }
    job.child = child;
    job.pid = child.pid ?? 0;
    child.stdout!.on("data", (data: Buffer) => this.output(job, data));
    child.stderr!.on("data", (data: Buffer) => this.output(job, data));
    child.on("error", (e) => this.end(job, `cannot run ${argv[0]}: ${e.message}`));
    child.on("close", (code, signal) => this.end(job, job.stopRequested ? "stopped" : signal ? `killed by ${signal}` : `exit code ${code ?? 0}`));
    // A program that left the group may hold the pipes after the job itself exited: its end counts then.
    child.on("exit", (code, signal) => setTimeout(() => this.end(job, job.stopRequested ? "stopped" : signal ? `killed by ${signal}` : `exit code ${code ?? 0}`), EXIT_GRACE_MS).unref());
    return job;
  }

  /**
   * The output since the last read of job `id`. With `waitFor`, waits until the new output matches it (or the job
   * ends, or `timeoutMs` passes, or `signal` aborts); with only `timeoutMs`, waits that long unless the job ends.
   */
  async read(id: string, options: { waitFor?: RegExp; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<JobRead | { error: string }> {
    const job = this.jobs.get(id);
    if (!job) return { error: this.unknown(id) };
    const { waitFor, timeoutMs = 0, signal } = options;
    const seen = (): boolean => (waitFor ? waitFor.test(unreadText(job)) : false);
    if (job.ended === undefined && timeoutMs > 0 && !seen() && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          job.wake.delete(check);
          signal?.removeEventListener("abort", done);
          resolve();
        };
        const check = (): void => {
          if (job.ended !== undefined || seen()) done();
        };
        const timer = setTimeout(done, timeoutMs);
        job.wake.add(check);
        signal?.addEventListener("abort", done, { once: true });
      });
    }
    const matched = waitFor ? seen() : undefined;
    const text = unreadText(job);
    const skipped = job.skipped;
    job.unread = [];
    job.unreadBytes = 0;
    job.skipped = 0;
    job.child?.stdout?.resume();
    job.child?.stderr?.resume();
    return { job, text: this.options.scrub ? this.options.scrub.text(text) : text, skipped, ...(matched !== undefined && { matched }) };
  }

  /** Stops job `id` (its whole process group: SIGTERM, then SIGKILL); says what happened. */
  async stop(id: string): Promise<{ job: Job; already: boolean } | { error: string }> {
    const job = this.jobs.get(id);
    if (!job) return { error: this.unknown(id) };
    if (job.ended !== undefined) return { job, already: true };
    job.stopRequested = true;
    signalGroup(job.pid, "SIGTERM");
    if (!(await this.ended(job, STOP_GRACE_MS))) {
      signalGroup(job.pid, "SIGKILL");
      await this.ended(job, STOP_GRACE_MS);
    }
    return { job, already: false };
  }

  /** Whether `job` ended within `ms`. */
  private ended(job: Running, ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        job.wake.delete(check);
        resolve(job.ended !== undefined);
      };
      const check = (): void => {
        if (job.ended !== undefined) done();
      };
      const timer = setTimeout(done, ms);
      job.wake.add(check);
      check();
    });
  }

  /** Kills every job still running, at once (awl is exiting). */
  stopAll(): void {
    for (const job of this.jobs.values()) {
      if (job.ended !== undefined) continue;
      job.stopRequested = true;
      signalGroup(job.pid, "SIGKILL");
    }
  }

  private unknown(id: string): string {
    const known = this.list().map((j) => `${j.id} (${j.ended ?? "running"})`);
    return `there is no background job "${id}"; ${known.length > 0 ? `the jobs are: ${known.join(", ")}` : "none was started"}`;
  }

  private openFile(job: Running): void {
    try {
      const folder = join(this.options.spillDir, "jobs");
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      const file = join(folder, `${job.id}-${process.pid}.txt`);
      job.fd = openSync(file, "wx", 0o600);
      job.file = file;
    } catch {
      // no file: the output is only read, not saved
    }
  }

  private output(job: Running, data: Buffer): void {
    job.bytes += data.length;
    if (job.fd !== undefined && job.saved < JOB_FILE_CAP) {
      const piece = data.subarray(0, JOB_FILE_CAP - job.saved);
      try {
        writeSync(job.fd, piece);
        job.saved += piece.length;
      } catch {
        this.closeFile(job);
      }
    }
    job.unread.push(data);
    job.unreadBytes += data.length;
    while (job.unreadBytes > UNREAD_CAP) {
      const first = job.unread[0]!;
      const over = job.unreadBytes - UNREAD_CAP;
      if (first.length <= over) {
        job.unread.shift();
        job.unreadBytes -= first.length;
        job.skipped += first.length;
      } else {
        job.unread[0] = first.subarray(over);
        job.unreadBytes -= over;
        job.skipped += over;
      }
    }
    // Nothing more can be kept (the file is full, the unread part too): the job waits on its writes until a read,
    // as a program whose terminal is not read does, instead of costing awl a core for output it drops.
    if ((job.fd === undefined || job.saved >= JOB_FILE_CAP) && job.unreadBytes >= UNREAD_CAP) {
      job.child?.stdout?.pause();
      job.child?.stderr?.pause();
    }
    for (const wake of [...job.wake]) wake();
  }

  private end(job: Running, how: string): void {
    if (job.ended !== undefined) return;
    job.ended = how;
    job.child = undefined;
    this.closeFile(job);
    for (const wake of [...job.wake]) wake();
  }

  private closeFile(job: Running): void {
    if (job.fd === undefined) return;
    try {
      closeSync(job.fd);
    } catch {
      // closed already
    }
    job.fd = undefined;
  }
}

/** What a job's file holds compared with what it printed, for the model and /jobs. */
export function savedText(job: Job): string {
  if (!job.file) return "its output is not saved (the file could not be opened)";
  return job.bytes > JOB_FILE_CAP ? `its first ${JOB_FILE_CAP / 1024 / 1024} MB are in ${job.file} (the file is capped; ${job.bytes} bytes in all)` : `all of it is in ${job.file}`;
}

/** One line per job for `/jobs` and a turn's end: `job1  running  12s  npm run dev`. */
export function jobLines(jobs: readonly Job[], now = Date.now()): string[] {
  return jobs.map((j) => `${j.id}  ${j.ended ?? `running ${Math.round((now - j.started.getTime()) / 1000)}s, pid ${j.pid}`}  ${j.command.replace(/\s+/g, " ")}`);
}

/** The note at a turn's end while jobs run: `2 background jobs still running: job1 npm run dev, job2 …; ${then}`. */
export function runningJobsText(jobs: readonly Job[], then: string): string {
  const named = jobs.map((j) => `${j.id} ${j.command.replace(/\s+/g, " ").slice(0, 60)}`).join(", ");
  return `${jobs.length === 1 ? "1 background job" : `${jobs.length} background jobs`} still running: ${named}; ${then}`;
}

function unreadText(job: Running): string {
  return Buffer.concat(job.unread).toString("utf8");
}

/** bash, as the `bash` tool runs commands; sh where there is none. */
function shell(): string {
  return existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  if (pid <= 0) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // gone already
  }
}
