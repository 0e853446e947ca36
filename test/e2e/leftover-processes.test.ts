// Processes a tool started that left its process group (`setsid`, a daemon's double fork) die with awl (issue 22
// item 5(d)), through the built awl with a scripted model, with and without the sandbox: on Esc (the call is
// cancelled), when awl exits after the turn (a background program the finished call left), and when awl itself
// is killed with SIGKILL (nothing of awl runs then: the watchdog, or bubblewrap's --die-with-parent, does it).
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { tmuxTest } from "../cli/tmux-terminal.js";
import { openaiAnswer } from "../cli/openai-answer.js";
import { allRunning, noneLeft } from "../support/processes.js";
import { AWL, openaiText, openaiToolCalls, providerEnv, sandbox } from "./support.js";

const tty = tmuxTest();

/** Sleeps of lengths no other process uses; `escaping` leave the group (setsid, and setsid behind a double fork). */
function sleeps(): { escaping: string; waiting: string; lengths: string[] } {
  const tag = `${process.pid}${Math.floor(Math.random() * 1e6)}`;
  const lengths = [`401.${tag}`, `402.${tag}`, `403.${tag}`];
  return {
    escaping: `setsid sleep ${lengths[0]} >/dev/null 2>&1 & (setsid sleep ${lengths[1]} >/dev/null 2>&1 &)`,
    waiting: `sleep ${lengths[2]}`,
    lengths,
  };
}

for (const boxed of [false, true]) {
  const flags = boxed ? ["--sandbox"] : [];
  const where = boxed ? "in the sandbox" : "without the sandbox";

  describe(`processes that left the tool's process group, ${where}`, () => {
    it("die on Esc", async () => {
      const { escaping, waiting, lengths } = sleeps();
      tty.server.enqueue({ body: openaiToolCalls([{ id: "b1", name: "bash", input: { command: `echo started; ${escaping}; ${waiting}` } }]) }, openaiAnswer("Still here."));
      await tty.start({ args: ["--allow", "bash", ...flags] });
      await tty.send("go");
      await allRunning(lengths);
      await tty.terminal.keys("Escape");
      await tty.terminal.waitFor(/⊘ bash/);
      await noneLeft(lengths);
    }, 60_000);

    it("die when awl exits after the turn (left running in the background by a call that ended)", async () => {
      const box = sandbox();
      try {
        const { escaping, lengths } = sleeps();
        const server = tty.server;
        const escaped = lengths.slice(0, 2);
        server.enqueue({ body: openaiToolCalls([{ id: "b1", name: "bash", input: { command: `${escaping}; until pgrep -f '^sleep ${escaped[0]}$' && pgrep -f '^sleep ${escaped[1]}$'; do sleep 0.05; done; echo launched` } }]) }, { body: openaiText("done") });
        const run = await box.awl(["-p", "go", "--allow", "bash", ...flags], { env: providerEnv("openai", server.url) });
        expect(run.code, run.stderr).toBe(0);
        expect(server.requests.at(-1)!.body).toContain("launched");
        await noneLeft(escaped);
      } finally {
        box.remove();
      }
    }, 60_000);

    it("die when awl is killed with SIGKILL, with the command it was running", async () => {
      const box = sandbox();
      try {
        const { escaping, waiting, lengths } = sleeps();
        tty.server.enqueue({ body: openaiToolCalls([{ id: "b1", name: "bash", input: { command: `${escaping}; ${waiting}` } }]) });
        const child = spawn(process.execPath, [AWL, "-p", "go", "--allow", "bash", ...flags], { cwd: box.cwd, env: box.env(providerEnv("openai", tty.server.url)), stdio: "ignore" });
        const exited = new Promise((resolve) => child.on("close", resolve));
        await allRunning(lengths);
        child.kill("SIGKILL");
        await exited;
        await noneLeft(lengths);
      } finally {
        box.remove();
      }
    }, 60_000);
  });
}
