// No listener per turn is left behind by the interactive UI (issue 30, "No growth": a session of 200 turns must not
// keep what each turn, call, question or reload added). awl in a real terminal (tmux) runs turns that each call a
// tool whose permission is asked and answered with `y`, its extension rewritten (hot reload) before some of them; a
// probe (NODE_OPTIONS=--import) counts, on SIGUSR2, the listeners per event on process, stdin, stdout and every
// worker thread. The counts after turn 3 and after turn 8 are the same: a listener added per turn and never
// removed (a key handler per question, a resize handler per block, a watcher's per reload) would show as 5 more.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { openaiToolCalls } from "../e2e/support.js";
import { waitUntil } from "../support/processes.js";
import { openaiAnswer } from "./openai-answer.js";
import { tempDir } from "./run-awl.js";
import { tmuxTest } from "./tmux-terminal.js";

const tty = tmuxTest();

/** A tool that asks (it declares no kinds, so it counts as exec), version `v` (its answer names it). */
const RUN = (v: number) => `awl.register_tool("run", { type = "object", properties = { command = { type = "string" } } },
  function(input) return "v${v} ran " .. (input.command or "") end)\n`;

it("turns with a question answered and a reload leave no listener behind on process, stdin, stdout or a worker", { timeout: 180_000 }, async () => {
  const dir = tempDir("awl-listeners-");
  const probe = join(dir, "count-listeners.mjs");
  const pidFile = join(dir, "pid");
  const counts = join(dir, "counts.jsonl");
  writeFileSync(probe, `import { isMainThread } from "node:worker_threads";
import { appendFileSync, writeFileSync } from "node:fs";
if (isMainThread) {
  const workers = new Set();
  process.on("worker", (w) => { workers.add(w); w.once("exit", () => workers.delete(w)); });
  // "online" is a worker's one-shot start-up event, not a per-call listener.
  const count = (emitter) => Object.fromEntries(emitter.eventNames().filter((e) => e !== "online").map((e) => [String(e), emitter.listenerCount(e)]));
  process.on("SIGUSR2", () => appendFileSync(${JSON.stringify(counts)}, JSON.stringify({ process: count(process), stdin: count(process.stdin), stdout: count(process.stdout), workers: [...workers].map(count).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))) }) + "\\n"));
  writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));
}
`);
  const home = tempDir("awl-home-");
  const extensions = join(home, ".config", "awl", "extensions");
  mkdirSync(extensions, { recursive: true });
  writeFileSync(join(extensions, "run.lua"), RUN(1));
  await tty.start({ home, extraEnv: [`NODE_OPTIONS=--import=${probe}`], args: ["--no-std-tools"], cwd: tempDir("awl-proj-") });
  await waitUntil(() => existsSync(pidFile), "the probe to load");
  const pid = Number(readFileSync(pidFile, "utf8"));
  const samples = (): unknown[] => (existsSync(counts) ? readFileSync(counts, "utf8").trim().split("\n").map((line) => JSON.parse(line)) : []);
  const sample = async (): Promise<unknown> => {
    const before = samples().length;
    process.kill(pid, "SIGUSR2");
    await waitUntil(() => samples().length > before, "the probe's counts");
    return samples().at(-1);
  };
  /** Waits until the screen (with what scrolled away) has said `n` reloads. */
  const reloads = async (n: number): Promise<void> => {
    for (const end = Date.now() + 15_000; ; ) {
      const said = (await tty.terminal.screen({ history: true })).match(/^reloaded run\b/gm)?.length ?? 0;
      if (said >= n) return;
      if (Date.now() > end) throw new Error(`the terminal said ${said} reloads, not ${n}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  let version = 1;
  const taken: unknown[] = [];
  for (let turn = 1; turn <= 8; turn++) {
    if (turn >= 4) {
      writeFileSync(join(extensions, "run.lua"), RUN(++version));
      await reloads(version - 1);
    }
    tty.server.enqueue({ body: openaiToolCalls([{ id: `c${turn}`, name: "run", input: { command: `turn ${turn}` } }]) }, openaiAnswer(`Turn ${turn} done.`));
    await tty.send(`turn ${turn}`);
    await tty.terminal.waitFor(new RegExp(`\\? run wants to run[\\s\\S]*command: turn ${turn}\\b[\\s\\S]*y allow once`));
    await tty.terminal.type("y");
    await tty.terminal.waitFor(new RegExp(`Turn ${turn} done\\.\\n>`));
    expect(tty.server.requests.at(-1)!.body).toContain(`v${version} ran turn ${turn}`);
    if (turn === 3 || turn === 8) taken.push(await sample());
  }
  expect(taken[1]).toEqual(taken[0]);
});
