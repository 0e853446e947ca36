/**
 * The processes a command under test starts, found with `ps`: sleeps of lengths no other process on the machine
 * uses, so a test can see them start and see every one of them gone (waiting on states, never on timings).
 */
import { execFileSync } from "node:child_process";

/**
 * A shell command that starts three `sleep`s of these lengths and waits: a child in the background, a grandchild
 * whose parent exits at once (a double fork: its parent is no longer the shell), and a child the shell waits for.
 * With `pidFile`, each one's pid is appended to that file as it starts.
 */
export function forkingCommand(pidFile?: string): { command: string; lengths: string[] } {
  const tag = `${process.pid}${Math.floor(Math.random() * 1e6)}`;
  const lengths = [`301.${tag}`, `302.${tag}`, `303.${tag}`];
  const note = pidFile === undefined ? "" : ` echo $! >> '${pidFile}';`;
  return { command: `sleep ${lengths[0]} &${note} (sleep ${lengths[1]} &${note}) ; sleep ${lengths[2]} &${note} wait`, lengths };
}

/** The pids of the live processes (zombies are dead) whose command line is exactly `sleep LENGTH` for one of `lengths`. */
export function sleepsRunning(lengths: readonly string[]): number[] {
  const wanted = new Set(lengths.map((length) => `sleep ${length}`));
  const found: number[] = [];
  for (const line of execFileSync("ps", ["-eo", "pid=,stat=,args="], { encoding: "utf8" }).split("\n")) {
    const m = /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (m && !m[2]!.startsWith("Z") && wanted.has(m[3]!.trim())) found.push(Number(m[1]));
  }
  return found;
}

/** Waits until `check()` holds, polling (a generous limit; no timing asserted); fails naming `what` otherwise. */
export async function waitUntil(check: () => boolean, what: string | (() => string), limitMs = 30_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`waited ${limitMs / 1000} s for ${typeof what === "string" ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Waits until every sleep of `lengths` runs (the command started them all). */
export function allRunning(lengths: readonly string[]): Promise<void> {
  return waitUntil(() => sleepsRunning(lengths).length === lengths.length, `the command's processes (sleep ${lengths.join(", ")}) to start`);
}

/** Waits until none of the sleeps of `lengths` runs any more; fails naming the ones left. */
export async function noneLeft(lengths: readonly string[]): Promise<void> {
  await waitUntil(() => sleepsRunning(lengths).length === 0, () => `every process of the command to be gone (left: pids ${sleepsRunning(lengths).join(", ")})`);
}
