/**
 * Child processes for Lua handlers (io.popen, os.execute, awl.exec). They run here, on the main
 * thread, not in the worker: a worker blocked in spawnSync could not be stopped, and its children
 * would outlive a cancel. Each child gets its own process group, remembered per call, so cancelling
 * or timing out a call kills everything it started, grandchildren included.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { constants } from "node:os";
import type { ExecReply, ExecRequest } from "./protocol.js";

/** Captured output beyond this is dropped (the program keeps running). */
const MAX_CAPTURE_BYTES = 64 * 1024 * 1024;
/** After the program exits, how long to wait for its pipes (a background grandchild may hold them). */
const PIPE_GRACE_MS = 100;

export type LogSink = (extension: string, stream: string, text: string) => void;

export class ChildProcesses {
  /** Process groups per call id, until the call ends. */
  private readonly groups = new Map<number, Set<number>>();

  constructor(
    private readonly env: Record<string, string>,
    private readonly log: LogSink,
  ) {}

  run(req: ExecRequest): Promise<ExecReply> {
    const [file, args] = req.shell !== undefined ? ["/bin/sh", ["-c", req.shell]] : [req.argv![0]!, req.argv!.slice(1)];
    return new Promise((resolvePromise) => {
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let sizes = [0, 0];
      let timedOut = false;
      let settled = false;
      let child: ChildProcess;
      const reply = (r: Omit<ExecReply, "stdout" | "stderr">) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolvePromise({ ...r, stdout: Buffer.concat(out), stderr: Buffer.concat(err) });
      };
      try {
        child = spawn(file, args, {
          cwd: req.cwd,
          env: req.env ?? this.env,
          detached: true, // its own process group: killable as a whole
          stdio: [req.stdin ? "pipe" : "ignore", "pipe", "pipe"],
        });
      } catch (e) {
        reply({ code: null, how: "error", detail: `cannot run ${file}: ${(e as Error).message}` });
        return;
      }
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
      const timer = req.timeoutMs
        ? setTimeout(() => {
            timedOut = true;
            killGroup(child.pid);
          }, req.timeoutMs)
        : undefined;
      child.on("error", (e) => reply({ code: null, how: "error", detail: `cannot run ${file}: ${e.message}` }));
      const finish = (code: number | null, signal: NodeJS.Signals | null) => {
        if (timedOut) reply({ code: null, how: "timeout" });
        else if (signal) reply({ code: null, how: "signal", detail: constants.signals[signal] ?? signal });
        else reply({ code: code ?? 0, how: "exit" });
      };
      child.on("exit", (code, signal) => {
        const wait = setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
          finish(code, signal);
        }, PIPE_GRACE_MS);
        child.on("close", () => {
          clearTimeout(wait);
          finish(code, signal);
        });
      });
    });
  }

  private remember(callId: number, pid: number): void {
    let set = this.groups.get(callId);
    if (!set) this.groups.set(callId, (set = new Set()));
    set.add(pid);
  }

  /** Kills every process group the call started (cancel, timeout). */
  killCall(callId: number): void {
    for (const pid of this.groups.get(callId) ?? []) killGroup(pid);
  }

  /** The call is over: its processes (background ones included) are no longer ours to kill. */
  forget(callId: number): void {
    this.groups.delete(callId);
  }

  killAll(): void {
    for (const callId of this.groups.keys()) this.killCall(callId);
    this.groups.clear();
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // the group is gone already
  }
}
