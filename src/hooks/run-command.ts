/**
 * Runs one command hook: `/bin/sh -c COMMAND` in the workspace, the event JSON on stdin, in a process group of its
 * own (inside the sandbox when it is on), with awl's API keys removed from its environment. At its deadline, on
 * Esc, and as soon as it exits, its whole process group is killed (a daemon it forked goes with it). What it
 * prints is kept up to {@link OUTPUT_CAP_BYTES} per stream; the rest is read and dropped.
 */
import type { ChildProcess } from "node:child_process";
import { closeSync } from "node:fs";
import type { ProcessSandbox, SandboxedCommand } from "../extensions/lua/types.js";
import { connectRelay, sandboxStdio } from "../extensions/lua/sandbox-stdio.js";
import { childEnv } from "../util/secrets.js";
import { childProcess } from "../util/lazy-builtin.js";

/** Output kept per stream. */
export const OUTPUT_CAP_BYTES = 1024 * 1024;

export interface CommandRun {
  /** The exit code; null when it was killed (deadline, Esc) or could not start. */
  code: number | null;
  stdout: string;
  stderr: string;
  how: "exit" | "timeout" | "cancelled" | "error";
  /** For `error`: why it could not start. */
  detail?: string;
}

export interface CommandOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Key values to remove wherever they appear in the environment, besides the variables named like keys. */
  secrets: readonly string[];
  /** Credential variables removed by name besides (`providers.*.api_key_env`), and those kept all the same (`pass_env`): util/secrets.ts `childEnv`. */
  withheldEnv?: readonly string[];
  passEnv?: readonly string[];
  timeoutMs: number;
  signal: AbortSignal;
  sandbox?: ProcessSandbox;
}

/** Runs `command` with `input` on stdin. Never throws. */
export function runHookCommand(command: string, input: string, options: CommandOptions): Promise<CommandRun> {
  const argv = ["/bin/sh", "-c", command];
  // The sandbox hands its seccomp filter over as fd 3 (closed here once the child has it).
  const wrapped: SandboxedCommand = options.sandbox ? options.sandbox.wrap(argv, options.cwd) : { argv, fds: [] };
  const [file, ...args] = wrapped.argv;
  const { fds } = wrapped;
  return new Promise((done) => {
    let child: ChildProcess;
    try {
      child = childProcess().spawn(file!, args, { cwd: options.cwd, env: childEnv(options.env, { secrets: options.secrets, withheld: options.withheldEnv ?? [], pass: options.passEnv ?? [] }), detached: true, stdio: ["pipe", "pipe", "pipe", ...sandboxStdio(wrapped)] });
      connectRelay(wrapped, child);
    } catch (e) {
      done({ code: null, stdout: "", stderr: "", how: "error", detail: (e as Error).message });
      return;
    } finally {
      for (const fd of fds) closeSync(fd);
    }
    const out = capped();
    const err = capped();
    child.stdout!.on("data", out.add);
    child.stderr!.on("data", err.add);
    child.stdin!.on("error", () => undefined); // a hook that does not read its stdin
    child.stdin!.end(input);
    let how: CommandRun["how"] = "exit";
    let detail: string | undefined;
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // the group is gone already
      }
    };
    const timer = setTimeout(() => {
      how = "timeout";
      killGroup();
    }, options.timeoutMs);
    const onAbort = (): void => {
      how = "cancelled";
      killGroup();
    };
    options.signal.addEventListener("abort", onAbort, { once: true });
    if (options.signal.aborted) onAbort();
    child.on("error", (e) => {
      how = "error";
      detail = e.message;
    });
    child.on("exit", () => {
      killGroup();
      // A child that left its group (setsid) may hold the pipes open: they are closed after a moment.
      setTimeout(() => {
        child.stdout!.destroy();
        child.stderr!.destroy();
      }, 500).unref();
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
      done({ code: how === "exit" ? code : null, stdout: out.text(), stderr: err.text(), how, ...(detail !== undefined && { detail }) });
    });
  });
}

function capped(): { add: (chunk: Buffer) => void; text: () => string } {
  const kept: Buffer[] = [];
  let size = 0;
  let dropped = false;
  return {
    add: (chunk) => {
      if (size >= OUTPUT_CAP_BYTES) {
        dropped = true;
        return;
      }
      const room = OUTPUT_CAP_BYTES - size;
      if (chunk.length > room) dropped = true;
      const piece = chunk.length > room ? chunk.subarray(0, room) : chunk;
      kept.push(piece);
      size += piece.length;
    },
    text: () => Buffer.concat(kept).toString("utf8") + (dropped ? `\n[output cut at ${OUTPUT_CAP_BYTES / 1024 / 1024} MB]` : ""),
  };
}
