/**
 * Programs that leave their process group (`setsid`, a daemon's double fork) are out of reach of a group kill.
 * awl finds them by a mark in their environment instead: every program the Lua extensions start gets
 * `AWL_TOOL_PROCESS=<run>/<slot>/<call>`, which its descendants inherit (the technique of Jenkins' process tree
 * killer). A cancelled call kills what carries its mark; when awl ends in any way (an exit, a crash, `kill -9`)
 * a watchdog started with the first program kills what carries the run's mark. Linux only (`/proc`). A program
 * that clears its environment (`env -i`) escapes this; the sandbox's process namespace does not let it
 * (docs/permissions.md, "Processes").
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { childProcess } from "../../util/lazy-builtin.js";

/** The variable that marks a program as started by a tool of this awl. */
export const MARK_VARIABLE = "AWL_TOOL_PROCESS";

/** This awl's mark: its pid and a random part (a reused pid never matches an earlier run). */
const RUN = `${process.pid}.${randomBytes(6).toString("hex")}`;
let slots = 0;
let watchdog = false;

/** A mark of its own for one set of child processes (a Lua slot's): `<run>/<n>`. */
export function newProcessMark(): string {
  return `${RUN}/${++slots}`;
}

/** `env` with the mark of one call of that set. */
export function markedEnv(env: Record<string, string | undefined>, mark: string, callId: number): Record<string, string | undefined> {
  return { ...env, [MARK_VARIABLE]: `${mark}/${callId}` };
}

/**
 * Kills every process whose environment holds exactly the mark of that call, again until none is left (one may
 * have forked meanwhile). Processes awl may not read (another user's) are not its own and are skipped.
 */
export function killMarked(mark: string, callId: number): void {
  if (process.platform !== "linux") return;
  const wanted = Buffer.from(`\0${MARK_VARIABLE}=${mark}/${callId}\0`);
  for (let round = 0; round < 5; round++) {
    let found = false;
    let entries: string[];
    try {
      entries = readdirSync("/proc");
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
      try {
        const environ = Buffer.concat([Buffer.from([0]), readFileSync(`/proc/${entry}/environ`)]);
        if (environ.includes(wanted)) {
          process.kill(Number(entry), "SIGKILL");
          found = true;
        }
      } catch {
        // gone meanwhile, or not ours to read
      }
    }
    if (!found) return;
  }
}

/**
 * Starts, once, a small shell that waits for awl to end (its stdin is a pipe from awl, which closes however awl
 * ends, `kill -9` included) and then kills every process that carries this run's mark. It runs in a process group
 * of its own, holds nothing awl waits for, and costs one idle `sh`.
 */
export function watchForLeftovers(): void {
  if (watchdog || process.platform !== "linux") return;
  watchdog = true;
  const script = [
    "read _",
    "for round in 1 2 3 4 5; do",
    "  found=",
    `  for f in $(grep -lsz "^${MARK_VARIABLE}=$AWL_WATCH_RUN/" /proc/[0-9]*/environ); do`,
    "    p=${f#/proc/}; kill -9 \"${p%/environ}\" 2>/dev/null && found=1",
    "  done",
    '  [ -n "$found" ] || break',
    "done",
  ].join("\n");
  try {
    const child = childProcess().spawn("/bin/sh", ["-c", script], { detached: true, stdio: ["pipe", "ignore", "ignore"], env: { PATH: process.env.PATH ?? "/usr/bin:/bin", AWL_WATCH_RUN: RUN } });
    child.on("error", () => {});
    child.stdin!.on("error", () => {});
    child.unref();
    (child.stdin as unknown as { unref?: () => void }).unref?.();
  } catch {
    // No shell: the group kills and the kills of a cancelled call still hold.
  }
}
