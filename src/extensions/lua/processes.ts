/**
 * Child processes for Lua handlers (io.popen, os.execute, awl.exec). They run here, on the main
 * thread, not in the worker: a worker blocked in spawnSync could not be stopped, and its children
 * would outlive a cancel. Each child gets its own process group, remembered per call, so cancelling
 * or timing out a call kills everything it started, grandchildren included.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync } from "node:fs";
import type { ExecReply, ExecRequest, ProcessEnd, ReadReply, SpawnRequest } from "./protocol.js";
import type { SandboxedCommand } from "./types.js";
import { connectRelay, sandboxStdio } from "./sandbox-stdio.js";
import { killMarked, markedEnv, newProcessMark, watchForLeftovers } from "./process-marks.js";
import { os } from "../../util/lazy-builtin.js";

/** Captured output beyond this is dropped (the program keeps running). */
const MAX_CAPTURE_BYTES = 64 * 1024 * 1024;
/** After the program exits, how long its pipes may stay silent before they are given up (a background grandchild may hold them). */
const PIPE_GRACE_MS = 100;
/** A spawned program's output waiting to be read beyond this pauses the program's pipes (it blocks on write). */
const HIGH_WATER_BYTES = 4 * 1024 * 1024;
/** At most this much output in one read reply (the rest waits for the next). */
const MAX_READ_BYTES = 1024 * 1024;

/** One program started by `awl.spawn`, its output queued until the handler reads it. */
interface Streamed {
  callId: number;
  /** Undefined when it could not start (`end` says why). */
  child?: ChildProcess;
  queue: { stream: "stdout" | "stderr"; data: Buffer }[];
  queued: number;
  end?: ProcessEnd;
  /** A read waiting for output or the end. */
  waiting?: () => void;
}

export type LogSink = (extension: string, stream: string, text: string) => void;

export class ChildProcesses {
  /** Process groups per call id, until the call ends. */
  private readonly groups = new Map<number, Set<number>>();
  /** Programs started with `awl.spawn`, by handle. */
  private readonly streamed = new Map<number, Streamed>();
  private nextHandle = 1;
  /** The mark its programs carry in their environment (process-marks.ts). */
  private readonly mark = newProcessMark();

  constructor(
    private readonly env: Record<string, string>,
    private readonly log: LogSink,
    /** Every program runs through it when given (the exec sandbox): the command line to run instead. */
    private readonly sandbox?: (argv: readonly string[], cwd: string) => SandboxedCommand,
  ) {}

  /**
   * The program and arguments to start for `argv` (itself, or the sandbox's command line around it) and the
   * descriptors it gets besides its stdio, which `started` closes here once it was started.
   */
  private commandLine(argv: readonly string[], cwd: string): { file: string; args: string[]; fds: (number | "pipe")[]; started(child?: ChildProcess): void } {
    const command: SandboxedCommand = this.sandbox ? this.sandbox(argv, cwd) : { argv: [...argv], fds: [] };
    const line = command.argv;
    return {
      file: line[0]!,
      args: line.slice(1),
      fds: sandboxStdio(command),
      started: (child) => {
        command.fds.forEach((fd) => closeSync(fd));
        if (child) connectRelay(command, child);
      },
    };
  }

  /** The environment of a program of that call: marked, so it can be found once it left its process group. */
  private envOf(req: { env?: Record<string, string>; callId: number }): NodeJS.ProcessEnv {
    watchForLeftovers();
    return markedEnv(req.env ?? this.env, this.mark, req.callId);
  }

  run(req: ExecRequest): Promise<ExecReply> {
    const { file, args, fds, started } = this.commandLine(req.shell !== undefined ? ["/bin/sh", "-c", req.shell] : req.argv!, req.cwd);
    return new Promise((resolvePromise) => {
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let sizes = [0, 0];
      let child: ChildProcess;
      const reply = (r: ProcessEnd) => resolvePromise({ ...r, stdout: Buffer.concat(out), stderr: Buffer.concat(err) });
      try {
        child = spawn(file, args, {
          cwd: req.cwd,
          env: this.envOf(req),
          detached: true, // its own process group: killable as a whole
          stdio: [req.stdin ? "pipe" : "ignore", "pipe", "pipe", ...fds],
        });
      } catch (e) {
        started();
        reply({ code: null, how: "error", detail: `cannot run ${file}: ${(e as Error).message}` });
        return;
      }
      started(child);
      if (child.pid !== undefined) this.remember(req.callId, child.pid);
      const collect = (stream: "stdout" | "stderr", into: Buffer[], index: 0 | 1) => (chunk: Buffer) => {
        if (req[stream] === "log") {
          this.log(req.extension, stream, chunk.toString("utf8"));
        } else if (sizes[index]! < MAX_CAPTURE_BYTES) {
          into.push(chunk);
          sizes[index]! += chunk.length;
        }
      };
      child.stdout!.on("data", collect("stdout", out, 0));
      child.stderr!.on("data", collect("stderr", err, 1));
      if (req.stdin && child.stdin) {
        child.stdin.on("error", () => {}); // the program may exit without reading its input
        child.stdin.end(Buffer.from(req.stdin));
      }
      watchEnd(child, file, req.timeoutMs, reply);
    });
  }

  /**
   * Starts a program for `awl.spawn` under the handle the worker chose: its own process group, no stdin (it reads
   * end of file), output queued. A program that cannot start ends at once with why.
   */
  spawn(req: SpawnRequest): void {
    const { file, args, fds, started } = this.commandLine(req.argv, req.cwd);
    const entry: Streamed = { callId: req.callId, queue: [], queued: 0 };
    this.streamed.set(req.handle, entry);
    let child: ChildProcess;
    try {
      child = spawn(file, args, { cwd: req.cwd, env: this.envOf(req), detached: true, stdio: ["ignore", "pipe", "pipe", ...fds] });
    } catch (e) {
      started();
      entry.end = { code: null, how: "error", detail: `cannot run ${file}: ${(e as Error).message}` };
      return;
    }
    started(child);
    entry.child = child;
    if (child.pid !== undefined) this.remember(req.callId, child.pid);
    const wake = () => {
      const waiting = entry.waiting;
      entry.waiting = undefined;
      waiting?.();
    };
    const collect = (stream: "stdout" | "stderr") => (data: Buffer) => {
      const last = entry.queue[entry.queue.length - 1];
      if (last && last.stream === stream && last.data.length < MAX_READ_BYTES) last.data = Buffer.concat([last.data, data]);
      else entry.queue.push({ stream, data });
      entry.queued += data.length;
      if (entry.queued > HIGH_WATER_BYTES) {
        child.stdout?.pause();
        child.stderr?.pause();
      }
      wake();
    };
    child.stdout!.on("data", collect("stdout"));
    child.stderr!.on("data", collect("stderr"));
    watchEnd(child, file, req.timeoutMs, (end) => {
      entry.end = end;
      wake();
    });
  }

  /** A spawned program's process id; 0 when it could not start (or its handle is closed). */
  pid(handle: number): { pid: number } {
    return { pid: this.streamed.get(handle)?.child?.pid ?? 0 };
  }

  /** The output queued since the last read, waiting for some if there is none yet; the end once all was read. */
  async read(handle: number): Promise<ReadReply> {
    const entry = this.streamed.get(handle);
    if (!entry) return { chunks: [], end: { code: null, how: "error", detail: "the program's handle is closed" } };
    while (entry.queue.length === 0 && !entry.end) await new Promise<void>((resolve) => (entry.waiting = resolve));
    const chunks: ReadReply["chunks"] = [];
    let size = 0;
    while (entry.queue.length > 0 && size < MAX_READ_BYTES) {
      const piece = entry.queue.shift()!;
      chunks.push(piece);
      size += piece.data.length;
    }
    entry.queued -= size;
    if (entry.queued <= HIGH_WATER_BYTES) {
      entry.child?.stdout?.resume();
      entry.child?.stderr?.resume();
    }
    if (entry.queue.length === 0 && entry.end) {
      this.streamed.delete(handle);
      return { chunks, end: entry.end };
    }
    return { chunks };
  }

  /** Kills a spawned program's whole process group. */
  kill(handle: number): { killed: boolean } {
    const entry = this.streamed.get(handle);
    if (!entry || entry.end) return { killed: false };
    killGroup(entry.child?.pid);
    return { killed: true };
  }

  private remember(callId: number, pid: number): void {
    let set = this.groups.get(callId);
    if (!set) this.groups.set(callId, (set = new Set()));
    set.add(pid);
  }

  /** Kills every process group the call started (cancel, timeout), and every process of it that left its group. */
  killCall(callId: number): void {
    const groups = this.groups.get(callId);
    if (!groups) return;
    for (const pid of groups) killGroup(pid);
    killMarked(this.mark, callId);
  }

  /**
   * The call is over: the programs it ran with `awl.spawn` and left running are killed (the handler can no longer
   * read them); those it started otherwise (background ones included) are no longer ours to kill.
   */
  forget(callId: number): void {
    for (const [handle, entry] of this.streamed) {
      if (entry.callId !== callId) continue;
      if (!entry.end) killGroup(entry.child?.pid);
      this.streamed.delete(handle);
    }
    this.groups.delete(callId);
  }

  killAll(): void {
    for (const callId of this.groups.keys()) this.killCall(callId);
    this.groups.clear();
  }
}

/**
 * Calls `done` once, when the program has ended and its pipes are closed (or, when a background grandchild still
 * holds them, once they were silent for PIPE_GRACE_MS after it exited and all their output was taken); at
 * `timeoutMs` the whole group is killed and the end is a timeout.
 */
function watchEnd(child: ChildProcess, file: string, timeoutMs: number | undefined, done: (end: ProcessEnd) => void): void {
  let timedOut = false;
  let settled = false;
  const timer = timeoutMs
    ? setTimeout(() => {
        timedOut = true;
        killGroup(child.pid);
      }, timeoutMs)
    : undefined;
  const finish = (end: ProcessEnd) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    done(timedOut ? { code: null, how: "timeout" } : end);
  };
  child.on("error", (e) => finish({ code: null, how: "error", detail: `cannot run ${file}: ${e.message}` }));
  child.on("exit", (code, signal) => {
    const end: ProcessEnd = signal ? { code: null, how: "signal", detail: os().constants.signals[signal] ?? signal } : { code: code ?? 0, how: "exit" };
    // The pipes close once read to their end. Only pipes left silent for PIPE_GRACE_MS (a background program
    // holds them) are given up: output still arriving, or waiting for a handler that reads behind (a paused
    // stream, bytes in its buffer or in the pipe), is all delivered first.
    const pipes = [child.stdout, child.stderr].filter((pipe) => pipe !== null);
    let heard = 0;
    for (const pipe of pipes) pipe.on("data", () => heard++); // a paused stream stays paused
    let wait: NodeJS.Timeout | undefined;
    const arm = (): void => {
      if (settled) return;
      const before = heard;
      wait = setTimeout(() => {
        const behind = pipes.some((pipe) => pipe.isPaused() || pipe.readableLength > 0);
        if (!timedOut && (behind || heard !== before)) return arm();
        // Timers run before the poll phase: output already in the pipes is read there, before this.
        setImmediate(() => {
          if (!timedOut && heard !== before) return arm();
          for (const pipe of pipes) pipe.destroy();
          finish(end);
        });
      }, PIPE_GRACE_MS);
    };
    arm();
    child.on("close", () => {
      clearTimeout(wait);
      finish(end);
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // the group is gone already
  }
}
